package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/rundir"
)

// boundRun is a real simulator run (fast preset, --rates 5,10, constant
// arrivals, --duration 2s, no SLO): both rates stable, so no SLO and no
// knee, and plan answers from the highest rate as a bound.
const boundRun = "../testdata/runs/bound"

// TestPlanBoundOnSavedRun: with no SLO and no knee the plan rests on the
// highest rate, which ran stable, and says each figure is a bound; the
// counts, tokens per day and cost are those worked out here from that
// row of levels.csv.
func TestPlanBoundOnSavedRun(t *testing.T) {
	run, err := rundir.ReadRunDir(boundRun)
	if err != nil {
		t.Fatal(err)
	}
	if run.Summary.Recommendation != nil && run.Summary.Recommendation.SLO != "" {
		t.Fatalf("fixture: %s has an SLO", boundRun)
	}
	rows := csvLevels(t, boundRun)
	top := rows[len(rows)-1]
	for _, r := range rows {
		if r["unstable"] != "false" || r["requests_failed"] != "0" {
			t.Fatalf("fixture: level %s is unstable or failing: %v", r["rate"], r)
		}
	}
	o := Options{PeakRPS: 100, Users: 50, Headroom: 0.75, GPUsPerReplica: 1, GPUHourUSD: 2}
	p, err := Make(run, o)
	if err != nil {
		t.Fatal(err)
	}
	x, l, tps := cell(t, top, "achieved_rps"), cell(t, top, "inflight_mean"), cell(t, top, "aggregate_output_tps")
	if p.Basis != BasisBound || p.Level.Rate != cell(t, top, "rate") {
		t.Fatalf("basis %s at rate %v, want %s at the highest rate, %v", p.Basis, p.Level.Rate, BasisBound, top["rate"])
	}
	// levels.csv rounds achieved_rps to 4 decimals and inflight_mean to 3:
	// the measured figures agree to that, and the counts are the csv's.
	if math.Abs(p.Level.RequestsPerS-x) > 0.00005 || math.Abs(p.Level.Users-l) > 0.0005 {
		t.Errorf("X %v, L %v; levels.csv says %v, %v", p.Level.RequestsPerS, p.Level.Users, x, l)
	}
	replicas := int(math.Ceil(o.PeakRPS / (x * o.Headroom)))
	users := int(math.Ceil(float64(o.Users) / (l * o.Headroom)))
	if p.Replicas != replicas || p.ReplicasN1 != replicas+1 || p.UserReplicas != users {
		t.Errorf("replicas %d (N+1 %d), user replicas %d; want ceil(%v / (%v × %v)) = %d, and ceil(%d / (%v × %v)) = %d",
			p.Replicas, p.ReplicasN1, p.UserReplicas, o.PeakRPS, x, o.Headroom, replicas, o.Users, l, o.Headroom, users)
	}
	if got, want := p.TokensPerDay, tps*SecondsPerDay; math.Abs(got-want) > 0.0005*SecondsPerDay {
		t.Errorf("tokens per day %v, want %v", got, want)
	}
	if got, want := p.CostPerMTok, o.GPUsPerReplica*o.GPUHourUSD/(tps*3600)*1e6; math.Abs(got-want) > 1e-5*want {
		t.Errorf("cost per M tokens %v, want %v", got, want)
	}

	var out bytes.Buffer
	if err := p.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		fmt.Sprintf("at most %d replicas: each replica held %.4f req/s (the highest rate measured) without saturating; its capacity may be higher — measure higher rates or add --slo-* to tighten", replicas, p.Level.RequestsPerS),
		fmt.Sprintf("at most %d replicas: each replica held L = %s concurrent users (the highest rate measured)", users, places4(p.Level.Users)),
		"output tokens/day (", ", at least\n",
		fmt.Sprintf("= $%.4f, at most\n", p.CostPerMTok),
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the plan does not say %q:\n%s", want, text)
		}
	}
	golden(t, "bound.txt", out.Bytes())

	var js bytes.Buffer
	if err := p.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var m struct {
		Basis  Basis             `json:"basis"`
		Bounds map[string]string `json:"bounds"`
	}
	if err := json.Unmarshal(js.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	if m.Basis != BasisBound || m.Bounds["replicas"] != "at most" || m.Bounds["output_tokens_per_day_per_replica"] != "at least" ||
		m.Bounds["usd_per_million_output_tokens"] != "at most" {
		t.Errorf("plan.json basis %q, bounds %v", m.Basis, m.Bounds)
	}
}

// TestPlanBoundClosedLoop: a closed-loop run without a knee (the merged
// run's one level, C=4) is planned on that level: C is a floor under what
// a replica holds, so the --users count is at most ceil(N / (C × h)).
func TestPlanBoundClosedLoop(t *testing.T) {
	const merged = "../testdata/runs/merged"
	run, err := rundir.ReadRunDir(merged)
	if err != nil {
		t.Fatal(err)
	}
	rows := csvLevels(t, merged)
	top := rows[len(rows)-1]
	o := Options{PeakRPS: 1000, Users: 50, Headroom: 0.75}
	p, err := Make(run, o)
	if err != nil {
		t.Fatal(err)
	}
	c := cell(t, top, "concurrency")
	users := int(math.Ceil(float64(o.Users) / (c * o.Headroom)))
	if p.Basis != BasisBound || p.Level.Concurrency != int(c) || p.UserReplicas != users {
		t.Fatalf("basis %s at C=%d, %d user replicas; want %s at C=%v, ceil(%d / (%v × %v)) = %d", p.Basis, p.Level.Concurrency, p.UserReplicas, BasisBound, c, o.Users, c, o.Headroom, users)
	}
	var out bytes.Buffer
	if err := p.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		fmt.Sprintf("at most %d replicas: each replica held %.4f req/s (C=%v, the highest level measured); its capacity may be higher — measure higher levels or add --slo-* to tighten", p.Replicas, p.Level.RequestsPerS, c),
		fmt.Sprintf("at most %d replicas: each replica held C = %v concurrent users (C=%v, the highest level measured); it may hold more", users, c, c),
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the plan does not say %q:\n%s", want, out.String())
		}
	}
}

// TestBoundNeedsAStableTop: a run without an SLO or a knee whose highest
// level was unstable, failing or without a steady window is refused as
// before, even when a lower level was fine: the highest stable level
// below an unstable one is not what a replica holds at most.
func TestBoundNeedsAStableTop(t *testing.T) {
	const old = "the run has no SLO and no knee within its levels: nothing to plan on without extrapolating (re-run with --slo-* or higher levels)"
	sec := time.Second
	for _, tc := range []struct {
		name  string
		spoil func(s *report.LevelStats)
	}{
		{"unstable", func(s *report.LevelStats) { s.Unstable, s.UnstableReason = true, "the queue grew" }},
		{"failing", func(s *report.LevelStats) { s.RequestsFailed = 4 }}, // 4 of 8 failed
		{"no steady window", func(s *report.LevelStats) { s.WindowFallback = true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stats, levels := build([]lvl{{1, 1, sec, nil, false}, {2, 2, sec, nil, false}})
			tc.spoil(&stats[1])
			_, err := fromParts("run", "", stats, levels, Options{PeakRPS: 10, Headroom: 1})
			if err == nil || err.Error() != old {
				t.Fatalf("error %v, want %q", err, old)
			}
		})
	}
}

// TestChooseMarksABound: among configurations planned as bounds (no SLO,
// no knee: C=1 2 req/s, C=2 4 req/s for a, G = 1; C=4 8, C=8 16 for b,
// G = 2), each is planned on its highest level and its replicas and cost
// say "at most": a at ceil(100 / (4 × 0.75)) = 34 replicas, $68/h; b at
// ceil(100 / (16 × 0.75)) = 9, 18 GPUs, $36/h, the cheaper.
func TestChooseMarksABound(t *testing.T) {
	sec := time.Second
	mk := func(path string, gpus float64, ls []lvl) Config {
		stats, levels := build(ls)
		return Config{Path: path, Stats: stats, Levels: levels, GPUs: gpus}
	}
	ch, err := Choose([]Config{
		mk("a", 1, []lvl{{1, 2, sec, nil, false}, {2, 4, sec, nil, false}}),
		mk("b", 2, []lvl{{4, 8, sec, nil, false}, {8, 16, sec, nil, false}}),
	}, fleetOptions)
	if err != nil {
		t.Fatal(err)
	}
	if b := ch.Best(); b.Run != "b" || b.Plan.Basis != BasisBound || b.Plan.Replicas != 9 || b.USDPerHour != 36 {
		t.Fatalf("chose %s (%s): %d replicas at $%v/h; want b (bound): 9 at $36/h", b.Run, b.Plan.Basis, b.Plan.Replicas, b.USDPerHour)
	}
	var out bytes.Buffer
	if err := ch.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  level    C=2 (bound)\n  replicas ceil(100 / (4.0000 × 0.75)) = ceil(33.333) = 34, at most\n",
		"  level    C=8 (bound)\n  replicas ceil(100 / (16.0000 × 0.75)) = ceil(8.333) = 9, at most\n",
		"  cost     9 × 2 × $2 = $36.00/h (18 GPUs; ",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the choice does not say %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(out.String(), "per million output tokens), at most\n") {
		t.Errorf("the cost is not marked a bound:\n%s", out.String())
	}
}

// TestPlanBoundSessions: a multi-turn run without an SLO or a knee (the
// saved sessions run, C=2) is a bound in sessions too: a replica completes
// at least its sessions per second.
func TestPlanBoundSessions(t *testing.T) {
	run, err := rundir.ReadRunDir("../testdata/runs/sessions")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Make(run, Options{PeakRPS: 10, Headroom: 0.75})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := p.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("sessions/s per replica (%.0f sessions/day), at least\n", p.sessionFigures().PerDay); p.Basis != BasisBound || !strings.Contains(out.String(), want) {
		t.Errorf("basis %s; the plan does not say %q:\n%s", p.Basis, want, out.String())
	}
}
