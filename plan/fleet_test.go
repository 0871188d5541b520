package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// configs are four hand-made configurations (aggregate output tok/s is
// 10 × req/s in each level, build's rule), planned for λ = 100 req/s at
// h = 0.75 and $2 per GPU-hour:
//   - tp1, G = 1: C=1 2 req/s, C=2 4 req/s pass, C=4 fails: C=2,
//     ceil(100 / (4 × 0.75)) = ceil(33.33) = 34 replicas, 34 GPUs, $68/h;
//   - tp2, G = 2: C=4 8, C=8 14 pass, C=16 fails: C=8,
//     ceil(100 / (14 × 0.75)) = ceil(9.52) = 10 replicas, 20 GPUs, $40/h;
//   - tp4, G = 4: C=8 20, C=16 30 pass: C=16,
//     ceil(100 / (30 × 0.75)) = ceil(4.44) = 5 replicas, 20 GPUs, $40/h;
//   - bad, G = 1: C=1 fails: excluded.
//
// tp2 is the cheapest ($40/h, tied with tp4, given first).
func configs() []Config {
	sec := time.Second
	mk := func(path string, gpus float64, ls []lvl) Config {
		stats, levels := build(ls)
		return Config{Path: path, SLO: "ttft_p95 ≤ 1s", Stats: stats, Levels: levels, GPUs: gpus}
	}
	return []Config{
		mk("tp1", 1, []lvl{{1, 2, sec, yes, false}, {2, 4, sec, yes, false}, {4, 5, sec, no, false}}),
		mk("tp2", 2, []lvl{{4, 8, sec, yes, false}, {8, 14, sec, yes, false}, {16, 15, sec, no, false}}),
		mk("tp4", 4, []lvl{{8, 20, sec, yes, false}, {16, 30, sec, yes, false}}),
		mk("bad", 1, []lvl{{1, 1, sec, no, false}}),
	}
}

var fleetOptions = Options{PeakRPS: 100, Headroom: 0.75, GPUHourUSD: 2}

func TestChooseCheapest(t *testing.T) {
	t.Parallel()
	o := fleetOptions
	o.Users = 200 // sized per configuration, not priced: the choice is on the peak rate
	ch, err := Choose(configs(), o)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		level          string
		replicas       int
		gpus, usd      float64
		excluded, lose string
	}{
		{"C=2", 34, 34, 68, "", "$68.00/h, $28.00/h (70.0%) more: 34 GPUs against 20"},
		{"C=8", 10, 20, 40, "", ""},
		{"C=16", 5, 20, 40, "", "the same price; the tie goes to the configuration given first"},
		{"", 0, 0, 0, "no tested level met the SLO", "cannot serve the peak within the SLO"},
	}
	if ch.Best().Run != "tp2" || len(ch.Candidates) != len(want) {
		t.Fatalf("chose %s of %d candidates, want tp2 of %d", ch.Best().Run, len(ch.Candidates), len(want))
	}
	for i, w := range want {
		c := ch.Candidates[i]
		switch {
		case w.excluded != "":
			if c.Plan != nil || !strings.Contains(c.Excluded, w.excluded) || c.USDPerHour != 0 {
				t.Errorf("%s: plan %v, excluded %q; want excluded for %q", c.Run, c.Plan, c.Excluded, w.excluded)
			}
		case c.Plan == nil:
			t.Errorf("%s excluded: %s", c.Run, c.Excluded)
			continue
		case c.Plan.Level.Key != w.level || c.Plan.Replicas != w.replicas || c.GPUsTotal != w.gpus || c.USDPerHour != w.usd:
			t.Errorf("%s: %s, %d replicas, %g GPUs, $%g/h; want %s, %d, %g, $%g", c.Run, c.Plan.Level.Key, c.Plan.Replicas, c.GPUsTotal, c.USDPerHour, w.level, w.replicas, w.gpus, w.usd)
		}
		if got := ch.why(i); (w.lose == "") != (got == "") || !strings.Contains(got, w.lose) {
			t.Errorf("%s loses: %q, want %q", c.Run, got, w.lose)
		}
	}
	var b strings.Builder
	if err := ch.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"replicas ceil(100 / (14.0000 × 0.75)) = ceil(9.524) = 10",
		"cost     10 × 2 × $2 = $40.00/h (20 GPUs;",
		"Cheapest: tp2, 10 replicas × 2 GPUs = 20 GPUs at $40.00/h (N+1: 11 replicas, $44.00/h).",
		"tp1 loses: $68.00/h",
		"users    ceil(200 / (8 × 0.75)) = 34 replicas for N = 200 concurrent users (not priced)",
		"bad (G = 1 GPU per replica):\n  excluded: no tested level met the SLO",
	} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("text lacks %q:\n%s", s, b.String())
		}
	}
}

// TestParetoFront: the points of configs() (tok/s per user = T / C,
// tok/s per GPU = T / G), and the front plot_pareto's rule finds: in
// descending tok/s per user, each point whose tok/s per GPU is at least
// the best so far: tp4 C=8 (25, 50), tp4 C=16 (18.75, 75), and tp2 C=16
// (9.375, 75), which ties on tok/s per GPU. tp2 C=8 (17.5, 70), the
// chosen level, is beaten by tp4 C=16 on both axes.
func TestParetoFront(t *testing.T) {
	t.Parallel()
	ch, err := Choose(configs(), fleetOptions)
	if err != nil {
		t.Fatal(err)
	}
	type pt struct {
		run, level    string
		user, gpu     float64
		front, chosen bool
		pass          bool
	}
	want := []pt{
		{"tp1", "C=1", 20, 20, false, false, true}, {"tp1", "C=2", 20, 40, false, false, true}, {"tp1", "C=4", 12.5, 50, false, false, false},
		{"tp2", "C=4", 20, 40, false, false, true}, {"tp2", "C=8", 17.5, 70, false, true, true}, {"tp2", "C=16", 9.375, 75, true, false, false},
		{"tp4", "C=8", 25, 50, true, false, true}, {"tp4", "C=16", 18.75, 75, true, false, true},
		{"bad", "C=1", 10, 10, false, false, false},
	}
	if len(ch.Points) != len(want) {
		t.Fatalf("%d points, want %d: %+v", len(ch.Points), len(want), ch.Points)
	}
	for i, w := range want {
		p := ch.Points[i]
		got := pt{p.Run, p.Level, p.PerUser, p.PerGPU, p.Front, p.Chosen, p.Pass != nil && *p.Pass}
		if got != w {
			t.Errorf("point %d: %+v, want %+v", i, got, w)
		}
	}
}

// TestChooseRefuses: what Choose cannot answer, in one line each.
func TestChooseRefuses(t *testing.T) {
	t.Parallel()
	cs := configs()
	mixed := append([]Config{}, cs...)
	mixed[1].SLO = "decode_tps_p50 ≥ 50"
	none := []Config{cs[3], cs[3]}
	unpriced := fleetOptions
	unpriced.GPUHourUSD = 0
	noGPUs := append([]Config{}, cs...)
	noGPUs[2].GPUs = 0
	for _, tc := range []struct {
		name string
		cs   []Config
		o    Options
		is   error
		want string
	}{
		{"different SLOs", mixed, fleetOptions, ErrMixedSLO, "tp2"},
		{"none meets the SLO", none, fleetOptions, ErrCannotAnswer, "no configuration serves the peak within the SLO (bad: no tested level met the SLO"},
		{"no price", cs, unpriced, nil, "--gpu-hour-usd"},
		{"a run without GPUs", noGPUs, fleetOptions, nil, "tp4: --gpus-per-replica and --gpu-hour-usd go together"},
		{"a peak beyond any fleet", cs, Options{PeakRPS: 1e300, Headroom: 0.75, GPUHourUSD: 2}, ErrCannotAnswer, "beyond the"},
	} {
		_, err := Choose(tc.cs, tc.o)
		if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), tc.want) || (tc.is != nil && !errors.Is(err, tc.is)) {
			t.Errorf("%s: %v; want one line with %q (is %v)", tc.name, err, tc.want, tc.is)
		}
	}
}

// TestChoiceJSON: plan.json of a choice holds every count finite and
// non-negative, the chosen run, each candidate's plan or exclusion, and
// the front.
func TestChoiceJSON(t *testing.T) {
	t.Parallel()
	ch, err := Choose(configs(), fleetOptions)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := ch.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var j ChoiceJSON
	if err := json.Unmarshal(b.Bytes(), &j); err != nil {
		t.Fatal(err)
	}
	if j.Chosen != "tp2" || len(j.Configs) != 4 || len(j.Pareto) != 9 || j.Configs[3].Plan != nil || j.Configs[3].Excluded == "" {
		t.Fatalf("plan.json: chosen %q, %d configurations, %d points:\n%s", j.Chosen, len(j.Configs), len(j.Pareto), b.String())
	}
	for _, c := range j.Configs[:3] {
		if c.Plan == nil || c.Plan.Replicas < 1 || c.GPUs <= 0 || c.USDPerHour <= 0 || math.IsInf(c.USDPerHour, 0) {
			t.Errorf("%s: %+v", c.Run, c)
		}
	}
	if j.Configs[1].Plan.Replicas != 10 || j.Configs[1].USDPerHour != 40 || j.Configs[1].Loses != "" {
		t.Errorf("tp2 in plan.json: %+v", j.Configs[1])
	}
}
