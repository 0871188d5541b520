package plan

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/rundir"
	"github.com/toksweep/toksweep/sweep"
)

// tiersRun is a real simulator run (fast preset, sessions of 3 turns at
// C = 1, 4, 16, four --slo-tier tiers, no --slo-*): instant is met by no
// level, fast answers C=1, steady C=4 and bulk C=16, every level passing.
const tiersRun = "../testdata/runs/tiers"

// TestTierPlansByHand: each tier is planned at its own answer level with
// the plan's formulas, worked out here from the hand-made levels: C = 1,
// 2, 4, 8 at X = 1, 2, 3, 3.5 req/s (T = 10 × X tok/s) with decode p10 =
// 100/C tok/s, sessions of 4 turns. interactive (decode ≥ 40) answers C=2,
// batch (≥ 10) C=8, impossible (≥ 1000) nothing.
func TestTierPlansByHand(t *testing.T) {
	t.Parallel()
	sec := time.Second
	stats, levels := build([]lvl{{1, 1, sec, yes, false}, {2, 2, sec, yes, false}, {4, 3, sec, yes, false}, {8, 3.5, sec, yes, false}})
	for i := range stats {
		stats[i].DecodeTPSP10 = 100 / float64(stats[i].Concurrency)
		stats[i].Session = report.SessionStats{Sessions: 5, TurnsMean: 4}
		stats[i].Mode, levels[i].Mode = sweep.SessionsMode, sweep.SessionsMode
	}
	tiers := []report.Tier{{Name: "interactive", SLO: report.SLO{DecodeTPS: 40}}, {Name: "batch", SLO: report.SLO{DecodeTPS: 10}},
		{Name: "impossible", SLO: report.SLO{DecodeTPS: 1000}}}
	o := Options{PeakRPS: 10, Users: 30, Headroom: 0.75, GPUsPerReplica: 8, GPUHourUSD: 2.5}
	got := TierPlans("R", stats, levels, tiers, o)
	if len(got) != 3 {
		t.Fatalf("%d tier plans, want 3", len(got))
	}
	for i, want := range []struct {
		level string
		c     int
		x     float64
		limit string
	}{{"C=2", 2, 2, "fails at C=4"}, {"C=8", 8, 3.5, "above C=8"}} {
		tp := got[i]
		if tp.Plan == nil || tp.Plan.Level.Key != want.level || tp.Limit != want.limit {
			t.Fatalf("tier %s: plan %+v, limit %q; want %s, %q", tp.Name, tp.Plan, tp.Limit, want.level, want.limit)
		}
		p := tp.Plan
		replicas := int(math.Ceil(o.PeakRPS / (want.x * o.Headroom)))
		users := int(math.Ceil(float64(o.Users) / (float64(want.c) * o.Headroom)))
		usdMTok := o.GPUsPerReplica * o.GPUHourUSD / (10 * want.x * 3600) * 1e6
		usdSession := o.GPUsPerReplica * o.GPUHourUSD / (want.x / 4 * 3600)
		if p.Replicas != replicas || p.ReplicasN1 != replicas+1 || p.UserReplicas != users || p.UserReplicasN1 != users+1 {
			t.Errorf("tier %s: replicas %d (N+1 %d), for N %d (N+1 %d); want %d, %d, %d, %d",
				tp.Name, p.Replicas, p.ReplicasN1, p.UserReplicas, p.UserReplicasN1, replicas, replicas+1, users, users+1)
		}
		if math.Abs(p.CostPerMTok-usdMTok) > 1e-9*usdMTok || math.Abs(p.CostPerSession()-usdSession) > 1e-9*usdSession {
			t.Errorf("tier %s: $%v per M tokens, $%v per session; want %v, %v", tp.Name, p.CostPerMTok, p.CostPerSession(), usdMTok, usdSession)
		}
		if p.TokensPerDay != 10*want.x*SecondsPerDay {
			t.Errorf("tier %s: %v tokens/day, want %v", tp.Name, p.TokensPerDay, 10*want.x*SecondsPerDay)
		}
		if tp.Bound != (want.limit == "above C=8") {
			t.Errorf("tier %s: bound %v with limit %q", tp.Name, tp.Bound, want.limit)
		}
	}
	if none := got[2]; none.Plan != nil || none.Limit != "fails at C=1" || !strings.Contains(none.Err, "decode_tps_p10 100.0 < 1000") {
		t.Errorf("impossible: plan %v, limit %q, err %q; want none, fails at C=1, the failed bound", none.Plan, none.Limit, none.Err)
	}
	// Without a price, no cost; without sessions, no cost per session.
	plain := TierPlans("R", stats, levels, tiers[:1], Options{PeakRPS: 10, Headroom: 0.75})
	if p := plain[0].Plan; !math.IsNaN(p.CostPerMTok) || !math.IsNaN(p.CostPerSession()) || p.UserReplicas != 0 {
		t.Errorf("unpriced, no users: $%v per M tokens, $%v per session, %d user replicas", p.CostPerMTok, p.CostPerSession(), p.UserReplicas)
	}
	if TierPlans("R", stats, levels, nil, o) != nil {
		t.Error("a run without tiers has tier plans")
	}
}

// TestTierPlansOnSavedRun: on a real run with tiers, each tier's plan
// rests on the level summary.json's tier table answered, and its counts
// and costs are worked out here from that level's row of levels.csv.
func TestTierPlansOnSavedRun(t *testing.T) {
	t.Parallel()
	run, err := rundir.ReadRunDir(tiersRun)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{PeakRPS: 50, Users: 200, Headroom: 0.75, GPUsPerReplica: 8, GPUHourUSD: 2.5}
	p, err := Make(run, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Tiers) != len(run.Summary.Tiers) || len(p.Tiers) != 4 {
		t.Fatalf("%d tier plans, summary.json has %d tiers, the fixture 4", len(p.Tiers), len(run.Summary.Tiers))
	}
	rows := map[string]map[string]string{}
	for _, r := range csvLevels(t, tiersRun) {
		rows["C="+r["concurrency"]] = r
	}
	answered := 0
	for i, tp := range p.Tiers {
		st := run.Summary.Tiers[i]
		if tp.Name != st.Name || tp.Limit != st.Limit || (tp.Plan == nil) != (st.Level == "") {
			t.Fatalf("tier %d: %s at %v (%s); summary.json: %s at %q (%s)", i, tp.Name, tp.Plan, tp.Limit, st.Name, st.Level, st.Limit)
		}
		if tp.Plan == nil {
			continue
		}
		answered++
		row := rows[st.Level]
		if tp.Plan.Level.Key != st.Level || row == nil {
			t.Fatalf("tier %s planned at %s, answered %s", tp.Name, tp.Plan.Level.Key, st.Level)
		}
		x, tps, c := cell(t, row, "requests_per_s"), cell(t, row, "aggregate_output_tps"), cell(t, row, "concurrency")
		turns := cell(t, row, "session_turns_mean")
		q := tp.Plan
		if want := int(math.Ceil(o.PeakRPS / (x * o.Headroom))); q.Replicas != want {
			t.Errorf("tier %s: %d replicas, want ceil(%v / (%v × %v)) = %d", tp.Name, q.Replicas, o.PeakRPS, x, o.Headroom, want)
		}
		if want := int(math.Ceil(float64(o.Users) / (c * o.Headroom))); q.UserReplicas != want {
			t.Errorf("tier %s: %d replicas for %d sessions, want %d", tp.Name, q.UserReplicas, o.Users, want)
		}
		// levels.csv rounds: tok/s to 3 decimals, req/s to 4, turns to 3.
		if want := o.GPUsPerReplica * o.GPUHourUSD / (tps * 3600) * 1e6; math.Abs(q.CostPerMTok-want) > 1e-5*want {
			t.Errorf("tier %s: $%v per M tokens, want %v", tp.Name, q.CostPerMTok, want)
		}
		if want := o.GPUsPerReplica * o.GPUHourUSD / (x / turns * 3600); math.Abs(q.CostPerSession()-want) > 1e-3*want {
			t.Errorf("tier %s: $%v per session, want %v", tp.Name, q.CostPerSession(), want)
		}
	}
	if answered != 3 {
		t.Errorf("%d tiers answered, the fixture has 3", answered)
	}
	var out bytes.Buffer
	if err := p.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	golden(t, "tiers.txt", out.Bytes())

	var js bytes.Buffer
	if err := p.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var j JSON
	if err := json.Unmarshal(js.Bytes(), &j); err != nil {
		t.Fatal(err)
	}
	for i, tj := range j.Tiers {
		tp := p.Tiers[i]
		if tp.Plan == nil {
			if tj.Level != "" || tj.Replicas != nil || tj.Error == "" {
				t.Errorf("plan.json tier %s: %+v, want no level, an error", tj.Name, tj)
			}
			continue
		}
		if tj.Level != tp.Plan.Level.Key || *tj.Replicas != tp.Plan.Replicas || *tj.UserReplicas != tp.Plan.UserReplicas ||
			*tj.CostPerMTok != tp.Plan.CostPerMTok || *tj.CostPerSession != tp.Plan.CostPerSession() {
			t.Errorf("plan.json tier %s: %+v, want the plan's %+v", tj.Name, tj, *tp.Plan)
		}
	}
	if _, ok := j.Formulas["usd_per_session"]; !ok {
		t.Error("plan.json's formulas lack usd_per_session")
	}
}

// A run without tiers writes no tier table and no "tiers" in plan.json.
func TestNoTiersNoTable(t *testing.T) {
	t.Parallel()
	run, err := rundir.ReadRunDir(sloRun)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Make(run, Options{PeakRPS: 40, Headroom: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	var text, js bytes.Buffer
	if err := p.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := p.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "Per SLO tier") || strings.Contains(js.String(), `"tiers"`) {
		t.Errorf("a run without tiers has a tier table:\n%s\n%s", text.String(), js.String())
	}
	if _, err := os.Stat(filepath.Join(sloRun, File)); err == nil {
		t.Errorf("a plan test wrote %s into the saved run", File)
	}
}
