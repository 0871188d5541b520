package sweep

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"
)

// gapStats is the mean rate (1 / mean gap) and the coefficient of variation
// of a plan's gaps.
func gapStats(plan []time.Duration) (rate, cv float64) {
	n := float64(len(plan) - 1)
	var sum, sq float64
	for i := 1; i < len(plan); i++ {
		g := (plan[i] - plan[i-1]).Seconds()
		sum += g
		sq += g * g
	}
	mean := sum / n
	sd := math.Sqrt(max(sq/n-mean*mean, 0))
	return 1 / mean, sd / mean
}

func TestArrivalPlanRateAndCV(t *testing.T) {
	const lambda, n = 8.0, 10001 // 10 000 gaps
	for _, tc := range []struct {
		spec RateSpec
		cv   float64
	}{
		{RateSpec{Arrival: Constant}, 0},
		{RateSpec{Arrival: Poisson, Seed: 1}, 1},
		{RateSpec{Arrival: Gamma, Burstiness: 1, Seed: 2}, 1},
		{RateSpec{Arrival: Gamma, Burstiness: 4, Seed: 3}, 0.5},
		{RateSpec{Arrival: Gamma, Burstiness: 0.25, Seed: 4}, 2},
	} {
		plan, err := tc.spec.ArrivalPlan(lambda, n, 0)
		if err != nil {
			t.Fatal(err)
		}
		if plan[0] != 0 || !slices.IsSorted(plan) {
			t.Errorf("%+v: plan must start at 0 and never go back", tc.spec)
		}
		rate, cv := gapStats(plan)
		if math.Abs(rate/lambda-1) > 0.02 {
			t.Errorf("%+v: mean rate %.4f, want %v within 2%%", tc.spec, rate, lambda)
		}
		if tc.cv == 0 && cv > 1e-6 || tc.cv > 0 && math.Abs(cv/tc.cv-1) > 0.05 {
			t.Errorf("%+v: CV %.4f, want %v within 5%%", tc.spec, cv, tc.cv)
		}
	}
}

func TestArrivalPlanSeeded(t *testing.T) {
	sp := RateSpec{Arrival: Gamma, Burstiness: 0.5, Seed: 42}
	a, _ := sp.ArrivalPlan(3, 500, 0)
	b, _ := sp.ArrivalPlan(3, 500, 0)
	if !slices.Equal(a, b) {
		t.Error("the same seed gave two plans")
	}
	other := sp
	other.Seed = 43
	c, _ := other.ArrivalPlan(3, 500, 0)
	d, _ := sp.ArrivalPlan(3, 500, 1)
	if slices.Equal(a, c) || slices.Equal(a, d) {
		t.Error("another seed or repeat gave the same plan")
	}
	for _, bad := range []RateSpec{{Arrival: "lumpy"}, {Arrival: Gamma, Burstiness: -1}} {
		if _, err := bad.ArrivalPlan(1, 10, 0); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	if _, err := sp.ArrivalPlan(0, 10, 0); err == nil {
		t.Error("rate 0: no error")
	}
}

func TestPlanUntilStaysBelowDuration(t *testing.T) {
	plan, err := RateSpec{Arrival: Poisson, Seed: 7}.planUntil(50, 2*time.Second, 0)
	if err != nil {
		t.Fatal(err)
	}
	if last := plan[len(plan)-1]; last >= 2*time.Second {
		t.Errorf("last arrival %v, want < 2s", last)
	}
	if n := len(plan); n < 70 || n > 130 { // 100 expected, Poisson spread
		t.Errorf("%d arrivals in 2s at 50/s", n)
	}
}

// The open loop sends at the plan's instants whatever the server does: with
// requests far longer than the gaps, they overlap; every record carries its
// scheduled instant; the cap holds the in-flight count and its wait shows
// as Start − Sched.
func TestOpenLoopSchedulesAndCaps(t *testing.T) {
	for _, cap := range []int{0, 2} {
		f := newFake(100 * time.Millisecond)
		cfg := Config{Rates: []float64{50}, Requests: 20, Prompt: Cycle(prompts(1)), MaxConcurrency: cap, Rate: RateSpec{Arrival: Constant}}
		levels, err := collect(t, context.Background(), cfg, f)
		if err != nil {
			t.Fatal(err)
		}
		l := levels[0]
		if l.Rate != 50 || l.Concurrency != cap || len(l.Records) != 20 {
			t.Fatalf("cap %d: level rate %v C %d with %d records", cap, l.Rate, l.Concurrency, len(l.Records))
		}
		scheds := make([]time.Duration, 0, 20)
		for _, r := range l.Records {
			if r.Sched == 0 || r.Start < r.Sched || r.Rate != 50 {
				t.Fatalf("cap %d: record sched %v start %v rate %v", cap, r.Sched, r.Start, r.Rate)
			}
			scheds = append(scheds, r.Sched)
		}
		slices.Sort(scheds)
		for i := 1; i < len(scheds); i++ {
			if g := scheds[i] - scheds[i-1]; g != 20*time.Millisecond {
				t.Fatalf("cap %d: scheduled gap %v, want exactly 20ms", cap, g)
			}
		}
		peak := f.peak.Load()
		last := l.Records[len(l.Records)-1]
		switch cap {
		case 0:
			if peak < 3 { // 100ms requests every 20ms: about 5 overlap
				t.Errorf("no cap: peak in flight %d, want the requests to overlap", peak)
			}
		default:
			if peak > int64(cap) {
				t.Errorf("cap %d: peak in flight %d", cap, peak)
			}
			// 20 requests of 100ms through 2 slots take ≥ 1s; the last was
			// scheduled at 380ms, so it waited ≥ 500ms in the client.
			if w := last.Start - last.Sched; w < 500*time.Millisecond {
				t.Errorf("cap %d: last request waited %v in the client, want ≥ 500ms", cap, w)
			}
		}
	}
}

// TestPlanPartsMakeTheWholePlan: the shards' parts of a plan are disjoint
// and together are exactly the plan one process draws, arrival j going to
// shard j mod N as the i-th of its part, for a count and for a duration.
func TestPlanPartsMakeTheWholePlan(t *testing.T) {
	const rate, n, d = 7.5, 301, 9 * time.Second
	for _, whole := range []RateSpec{
		{Arrival: Poisson, Seed: 7},
		{Arrival: Gamma, Burstiness: 0.3, Seed: 8},
		{Arrival: Constant},
	} {
		draws := map[string]func(RateSpec) ([]time.Duration, error){
			"count":    func(sp RateSpec) ([]time.Duration, error) { return sp.ArrivalPlan(rate, n, 1) },
			"duration": func(sp RateSpec) ([]time.Duration, error) { return sp.planUntil(rate, d, 1) },
		}
		for how, draw := range draws {
			plan, err := draw(whole)
			if err != nil {
				t.Fatal(err)
			}
			for _, of := range []int{1, 2, 3, 4, 7} {
				union := make([]time.Duration, len(plan))
				got := 0
				for i := range of {
					sp := whole
					sp.Part = Part{Index: i, Of: of}
					part, err := draw(sp)
					if err != nil {
						t.Fatal(err)
					}
					for m, at := range part {
						if j := m*of + i; j < len(union) {
							union[j] = at
						}
					}
					got += len(part)
				}
				if n, _ := (RateSpec{Arrival: whole.Arrival, Burstiness: whole.Burstiness, Seed: whole.Seed, Part: Part{1, of}}).PlanLen(rate, d, 1, 1<<20); how == "duration" && n != len(plan) {
					t.Errorf("%+v: PlanLen of a shard's spec is %d, the whole plan holds %d", whole, n, len(plan))
				}
				if got != len(plan) || !slices.Equal(union, plan) {
					t.Errorf("%+v by %s, %d shards: the parts hold %d arrivals and rebuild the plan %v; the plan has %d",
						whole, how, of, got, slices.Equal(union, plan), len(plan))
				}
			}
		}
	}
}
