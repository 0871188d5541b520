package plan

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/rundir"
	"github.com/toksweep/toksweep/sweep"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// sloRun is a real simulator run (default preset, C = 1, 2, 4, 8, 16,
// --slo-decode-tps 250) in which C=1..4 pass and C=8 fails.
const sloRun = "../testdata/runs/slo"

// csvLevels reads dir/levels.csv into one map per row.
func csvLevels(t *testing.T, dir string) []map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, rundir.LevelsFile))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, row := range rows[1:] {
		m := map[string]string{}
		for i, h := range rows[0] {
			m[h] = row[i]
		}
		out = append(out, m)
	}
	return out
}

func cell(t *testing.T, row map[string]string, col string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(row[col], 64)
	if err != nil {
		t.Fatalf("column %s = %q: %v", col, row[col], err)
	}
	return v
}

// TestPlanOnSavedRun: the plan of a real run picks the level levels.csv
// says is the largest passing one, and its replica counts, tokens per day
// and cost are those computed here by hand from that row's figures.
func TestPlanOnSavedRun(t *testing.T) {
	run, err := rundir.ReadRunDir(sloRun)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{PeakRPS: 100, Users: 500, Headroom: 0.75, GPUsPerReplica: 8, GPUHourUSD: 2.5}
	p, err := Make(run, o)
	if err != nil {
		t.Fatal(err)
	}
	// The largest level that passed, every lower one passing (rows are in
	// ascending C with one repeat each).
	var row map[string]string
	for _, r := range csvLevels(t, sloRun) {
		if r["slo_pass"] != "true" {
			break
		}
		row = r
	}
	if row == nil {
		t.Fatal("fixture: no passing level in levels.csv")
	}
	c := cell(t, row, "concurrency")
	x, tps := cell(t, row, "requests_per_s"), cell(t, row, "aggregate_output_tps")
	if p.Level.Concurrency != int(c) {
		t.Fatalf("chose C=%d, levels.csv's largest passing level is C=%v", p.Level.Concurrency, c)
	}
	wantReplicas := int(math.Ceil(o.PeakRPS / (x * o.Headroom)))
	wantUsers := int(math.Ceil(float64(o.Users) / (c * o.Headroom)))
	if p.Replicas != wantReplicas || p.ReplicasN1 != wantReplicas+1 {
		t.Errorf("replicas %d (N+1 %d), want ceil(%v / (%v × %v)) = %d (N+1 %d)",
			p.Replicas, p.ReplicasN1, o.PeakRPS, x, o.Headroom, wantReplicas, wantReplicas+1)
	}
	if p.UserReplicas != wantUsers || p.UserReplicasN1 != wantUsers+1 {
		t.Errorf("user replicas %d (N+1 %d), want %d (N+1 %d)", p.UserReplicas, p.UserReplicasN1, wantUsers, wantUsers+1)
	}
	// levels.csv rounds tok/s to 3 decimals: the figures agree to that.
	if got, want := p.TokensPerDay, tps*SecondsPerDay; math.Abs(got-want) > 0.0005*SecondsPerDay {
		t.Errorf("tokens per day %v, want %v", got, want)
	}
	if got, want := p.CostPerMTok, o.GPUsPerReplica*o.GPUHourUSD/(tps*3600)*1e6; math.Abs(got-want) > 1e-6*want {
		t.Errorf("cost per M tokens %v, want %v", got, want)
	}
	// Little's law in a closed loop: C / E[E2E] is the completion rate.
	if d := p.LittleRPS/x - 1; math.Abs(d) > 0.10 {
		t.Errorf("Little's law %v req/s vs requests_per_s %v: %+.1f%%", p.LittleRPS, x, 100*d)
	}
	var out bytes.Buffer
	if err := p.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	golden(t, "slo.txt", out.Bytes())
}

// TestPlanJSON: plan.json is valid JSON with the plan's figures, and
// leaves the users and price out when they were not asked for.
func TestPlanJSON(t *testing.T) {
	run, err := rundir.ReadRunDir(sloRun)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Make(run, Options{PeakRPS: 40, Headroom: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := p.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		t.Fatalf("plan.json is not JSON: %v\n%s", err, b.String())
	}
	if m["replicas"] != float64(p.Replicas) || m["replicas_n_plus_1"] != float64(p.Replicas+1) || m["basis"] != "slo" {
		t.Errorf("plan.json: %s", b.String())
	}
	for _, k := range []string{"users", "user_replicas", "gpus_per_replica"} {
		if _, ok := m[k]; ok {
			t.Errorf("plan.json has %s though it was not asked for", k)
		}
	}
	if v, ok := m["usd_per_million_output_tokens"]; !ok || v != nil {
		t.Errorf("usd_per_million_output_tokens = %v, want null without a price", v)
	}
	if strings.Contains(b.String(), `\u003c`) {
		t.Errorf("plan.json escapes < in the failing criterion: %s", b.String())
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./plan -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./plan -update rewrites it)\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

// lvl is a hand-made level: c workers, rps requests per second and 10×rps
// output tok/s over a 10 s window of a 10 s level, each successful request
// taking e2e; pass is its SLO verdict (nil: none).
type lvl struct {
	c    int
	rps  float64
	e2e  time.Duration
	pass *bool
	// fallback: no steady window, so the level cannot bear a verdict.
	fallback bool
}

var yes, no = ptr(true), ptr(false)

// unnamed is a failed verdict that names no criterion (a summary.json
// edited by hand, "slo_pass": false with "slo_failed": "").
var unnamed = ptr(false)

func ptr[T any](v T) *T { return &v }

func build(ls []lvl) ([]report.LevelStats, []sweep.Level) {
	var stats []report.LevelStats
	var levels []sweep.Level
	for _, l := range ls {
		s := report.LevelStats{Concurrency: l.c, RequestsOK: 4, RequestsPerS: l.rps, AggregateOutputTPS: 10 * l.rps,
			WindowEnd: 10 * time.Second, MeasuredSpan: 10 * time.Second, WindowFallback: l.fallback}
		if l.pass != nil {
			s.SLO = &report.SLOResult{Pass: *l.pass}
			if !*l.pass && l.pass != unnamed {
				s.SLO.Failed = []string{"ttft_p95 9s > 1s"}
			}
		}
		var recs []client.Record
		for i := range 4 {
			start := time.Duration(i) * time.Second
			recs = append(recs, client.Record{Concurrency: l.c, Start: start, End: start + l.e2e})
		}
		// A failed request and a warm-up one: neither is in E[E2E].
		recs = append(recs, client.Record{Concurrency: l.c, End: time.Hour, ErrorClass: client.HTTP5xx},
			client.Record{Concurrency: l.c, End: time.Hour, Warmup: true})
		stats = append(stats, s)
		levels = append(levels, sweep.Level{Concurrency: l.c, Records: recs})
	}
	return stats, levels
}

// TestChoose: which level a plan rests on, from hand-made verdicts.
func TestChoose(t *testing.T) {
	sec := time.Second
	cases := []struct {
		name   string
		levels []lvl
		want   int    // chosen C; 0: an error
		why    string // in Why, or in the error
		basis  Basis
	}{
		{"largest passing", []lvl{{1, 1, sec, yes, false}, {2, 2, sec, yes, false}, {4, 3, sec, no, false}}, 2, "C=4 failed the SLO: ttft_p95 9s > 1s", BasisSLO},
		{"every level passes", []lvl{{1, 1, sec, yes, false}, {2, 2, sec, yes, false}}, 2, "limit is above it and was not measured", BasisSLO},
		{"a pass above a failure is not trusted", []lvl{{1, 1, sec, yes, false}, {2, 2, sec, no, false}, {4, 4, sec, yes, false}}, 1, "C=2 failed", BasisSLO},
		{"a pass that cannot bear a verdict", []lvl{{1, 1, sec, yes, false}, {2, 2, sec, yes, true}}, 1, "C=2 cannot bear a verdict (no steady window)", BasisSLO},
		{"the first level fails", []lvl{{1, 1, sec, no, false}, {2, 2, sec, no, false}}, 0, "no tested level met the SLO", BasisSLO},
		{"a failed verdict that names no criterion", []lvl{{1, 1, sec, yes, false}, {2, 2, sec, unnamed, false}}, 1, "C=2 failed the SLO: failed (no criterion recorded)", BasisSLO},
		{"no SLO: the knee", []lvl{{1, 1, sec, nil, false}, {2, 2, sec, nil, false}, {4, 2.1, sec, nil, false}}, 2, "knee", BasisKnee},
		{"no SLO, no knee: the highest level, as a bound", []lvl{{1, 1, sec, nil, false}, {2, 2, sec, nil, false}}, 2, "C=2 is the highest level measured and ran stable", BasisBound},
		{"no SLO, no knee, the highest level unfit", []lvl{{1, 1, sec, nil, false}, {2, 2, sec, nil, true}}, 0, "no SLO and no knee", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stats, levels := build(tc.levels)
			p, err := fromParts("run", "", stats, levels, Options{PeakRPS: 10, Headroom: 1})
			if tc.want == 0 {
				if err == nil || !strings.Contains(err.Error(), tc.why) {
					t.Fatalf("error %v, want one saying %q", err, tc.why)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Level.Concurrency != tc.want || p.Basis != tc.basis || !strings.Contains(p.Why, tc.why) {
				t.Errorf("chose C=%d (%s): %q; want C=%d (%s) saying %q", p.Level.Concurrency, p.Basis, p.Why, tc.want, tc.basis, tc.why)
			}
		})
	}
}

// TestFigures: the formulas on hand-made numbers.
func TestFigures(t *testing.T) {
	// C=4 at 8 req/s, 80 tok/s, E2E 0.5 s: Little's law gives 4/0.5 = 8.
	stats, levels := build([]lvl{{4, 8, 500 * time.Millisecond, yes, false}})
	cases := []struct {
		o                     Options
		replicas, userReplica int
		cost                  float64
	}{
		// 100 / (8 × 0.75) = 16.67 → 17; 50 / (4 × 0.75) = 16.67 → 17.
		{Options{PeakRPS: 100, Users: 50, Headroom: 0.75}, 17, 17, math.NaN()},
		// An exact multiple needs no extra replica: 48 / (8 × 0.75) = 8; 12 / (4 × 0.75) = 4.
		{Options{PeakRPS: 48, Users: 12, Headroom: 0.75}, 8, 4, math.NaN()},
		// 0.1 / (8 × 1) → 1; cost 2 × 3 / (80 × 3600) × 1e6 = 20.8333…
		{Options{PeakRPS: 0.1, Headroom: 1, GPUsPerReplica: 2, GPUHourUSD: 3}, 1, 0, 6.0 / (80 * 3600) * 1e6},
	}
	for _, tc := range cases {
		p, err := fromParts("run", "", stats, levels, tc.o)
		if err != nil {
			t.Fatal(err)
		}
		if p.Replicas != tc.replicas || p.ReplicasN1 != tc.replicas+1 || p.UserReplicas != tc.userReplica {
			t.Errorf("%+v: replicas %d/%d users %d, want %d/%d users %d", tc.o, p.Replicas, p.ReplicasN1, p.UserReplicas, tc.replicas, tc.replicas+1, tc.userReplica)
		}
		if tc.userReplica > 0 && p.UserReplicasN1 != tc.userReplica+1 {
			t.Errorf("user N+1 %d, want %d", p.UserReplicasN1, tc.userReplica+1)
		}
		if math.IsNaN(tc.cost) != math.IsNaN(p.CostPerMTok) || (!math.IsNaN(tc.cost) && math.Abs(p.CostPerMTok-tc.cost) > 1e-9) {
			t.Errorf("%+v: cost %v, want %v", tc.o, p.CostPerMTok, tc.cost)
		}
		if p.LittleRPS != 8 || p.Level.MeanE2E != 500*time.Millisecond || p.Level.E2ERequests != 4 {
			t.Errorf("Little %v req/s from E[E2E] %v over %d requests, want 8 from 500ms over 4", p.LittleRPS, p.Level.MeanE2E, p.Level.E2ERequests)
		}
		if p.TokensPerDay != 80*86400 {
			t.Errorf("tokens per day %v, want %v", p.TokensPerDay, 80*86400)
		}
	}
}

// TestPoolsRepeats: a level run twice is planned on the mean of its
// repeats, and fails if either repeat failed.
func TestPoolsRepeats(t *testing.T) {
	sec := time.Second
	stats, levels := build([]lvl{{1, 1, sec, yes, false}, {2, 2, sec, yes, false}, {2, 4, 3 * sec, yes, false}, {4, 5, sec, yes, false}, {4, 6, sec, no, false}})
	p, err := fromParts("run", "", stats, levels, Options{PeakRPS: 9, Headroom: 1})
	if err != nil {
		t.Fatal(err)
	}
	if p.Level.Concurrency != 2 || p.Level.Repeats != 2 || p.Level.RequestsPerS != 3 || p.Level.MeanE2E != 2*sec || p.Replicas != 3 {
		t.Errorf("level %+v, replicas %d; want C=2 over 2 repeats at 3 req/s, E[E2E] 2s, 3 replicas", p.Level, p.Replicas)
	}
}

func TestCheck(t *testing.T) {
	good := Options{PeakRPS: 1, Headroom: 0.75}
	if err := good.Check(); err != nil {
		t.Fatal(err)
	}
	bad := []Options{
		{PeakRPS: 0, Headroom: 0.75},
		{PeakRPS: math.Inf(1), Headroom: 0.75},
		{PeakRPS: math.NaN(), Headroom: 0.75},
		{PeakRPS: 1, Headroom: 0},
		{PeakRPS: 1, Headroom: 1.01},
		{PeakRPS: 1, Headroom: 0.5, Users: -1},
		{PeakRPS: 1, Headroom: 0.5, GPUsPerReplica: 8},
		{PeakRPS: 1, Headroom: 0.5, GPUHourUSD: 2},
		{PeakRPS: 1, Headroom: 0.5, GPUsPerReplica: -1, GPUHourUSD: 2},
	}
	for _, o := range bad {
		if err := o.Check(); err == nil {
			t.Errorf("%+v passes Check", o)
		}
	}
}
