package sweep

import (
	"context"
	"math"
	"slices"
	"testing"
	"testing/synctest"
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
		plan, err := tc.spec.Instants(lambda, n, 0)
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
	a, _ := sp.Instants(3, 500, 0)
	b, _ := sp.Instants(3, 500, 0)
	if !slices.Equal(a, b) {
		t.Error("the same seed gave two plans")
	}
	other := sp
	other.Seed = 43
	c, _ := other.Instants(3, 500, 0)
	d, _ := sp.Instants(3, 500, 1)
	if slices.Equal(a, c) || slices.Equal(a, d) {
		t.Error("another seed or repeat gave the same plan")
	}
	for _, bad := range []RateSpec{{Arrival: "lumpy"}, {Arrival: Gamma, Burstiness: -1}} {
		if _, err := bad.Instants(1, 10, 0); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	if _, err := sp.Instants(0, 10, 0); err == nil {
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

// The open loop sends at the plan's instants whatever the server does
// (in fake time, testing/synctest, so exactly): with requests far longer
// than the gaps, they overlap; every record carries its scheduled instant;
// the cap holds the in-flight count and its wait shows as Start − Sched.
func TestOpenLoopSchedulesAndCaps(t *testing.T) {
	for _, cap := range []int{0, 2} {
		synctest.Test(t, func(t *testing.T) {
			// 90 ms requests every 20 ms: no request ends at an instant
			// another is sent, so the in-flight count has one value.
			f := newFake(90 * time.Millisecond)
			f.epoch = f.epoch.Add(-time.Second) // no instant is 0 (Sched 0 means "now")
			cfg := Config{Load: RateLoad([]float64{50}, cap, RateSpec{Arrival: Constant}), Requests: 20, Prompt: Cycle(prompts(1))}
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
			s0 := scheds[0]
			peak := f.peak.Load()
			switch cap {
			case 0:
				if peak != 5 { // 90ms requests every 20ms: 5 overlap
					t.Errorf("no cap: peak in flight %d, want 5", peak)
				}
				for _, r := range l.Records {
					if r.Start != r.Sched {
						t.Errorf("no cap: request scheduled at %v sent at %v", r.Sched-s0, r.Start-s0)
					}
				}
			default:
				if peak != int64(cap) {
					t.Errorf("cap %d: peak in flight %d", cap, peak)
				}
				// Through 2 slots, request k ≥ 2 is sent when request k−2
				// ends: at 90 ms × (k/2) + 20 ms × (k%2). The last, scheduled
				// at 380 ms, is sent at 830 ms: it waited 450 ms in the client.
				for _, r := range l.Records {
					k := int((r.Sched - s0) / (20 * time.Millisecond))
					want := r.Sched
					if k >= 2 {
						want = s0 + time.Duration(k/2)*90*time.Millisecond + time.Duration(k%2)*20*time.Millisecond
					}
					if r.Start != want {
						t.Errorf("cap %d: request %d sent at %v, want %v", cap, k, r.Start-s0, want-s0)
					}
				}
				last := l.Records[len(l.Records)-1]
				if w := last.Start - last.Sched; w != 450*time.Millisecond {
					t.Errorf("cap %d: last request waited %v in the client, want 450ms", cap, w)
				}
			}
		})
	}
}

// The open loop sends each request at exactly its planned instant (in fake
// time): the records' scheduled instants are the seeded Poisson plan that
// Instants draws, offset by the level's start, and each was sent then.
func TestOpenLoopSendsAtThePlannedInstants(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sp := RateSpec{Arrival: Poisson, Seed: 7}
		want, err := sp.Instants(20, 40, 0)
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{Load: RateLoad([]float64{20}, 0, sp), Requests: 40, Prompt: Cycle(prompts(1))}
		levels, err := collect(t, context.Background(), cfg, newFake(300*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		l := levels[0]
		if len(l.Records) != 40 {
			t.Fatalf("%d records, want 40", len(l.Records))
		}
		s0 := l.Records[0].Sched
		if s0 < l.Start || s0-l.Start > 10*time.Millisecond {
			t.Errorf("the first arrival is scheduled %v after the level's start", s0-l.Start)
		}
		for i, r := range l.Records {
			if r.Sched-s0 != want[i]-want[0] || r.Start != r.Sched {
				t.Errorf("request %d scheduled at +%v, sent at +%v; the plan says +%v", i, r.Sched-s0, r.Start-s0, want[i]-want[0])
			}
		}
	})
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
			"count":    func(sp RateSpec) ([]time.Duration, error) { return sp.Instants(rate, n, 1) },
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
				if n, _ := (RateSpec{Arrival: whole.Arrival, Burstiness: whole.Burstiness, Seed: whole.Seed, Part: Part{1, of}}).CountArrivals(rate, d, 1, 1<<20); how == "duration" && n != len(plan) {
					t.Errorf("%+v: CountArrivals of a shard's spec is %d, the whole plan holds %d", whole, n, len(plan))
				}
				if got != len(plan) || !slices.Equal(union, plan) {
					t.Errorf("%+v by %s, %d shards: the parts hold %d arrivals and rebuild the plan %v; the plan has %d",
						whole, how, of, got, slices.Equal(union, plan), len(plan))
				}
			}
		}
	}
}

// planUntil collects the plan whose instants stay below d.
func (sp RateSpec) planUntil(rate float64, d time.Duration, repeat int) ([]time.Duration, error) {
	next, err := sp.Schedule(rate, MaxInstants, d, repeat)
	if err != nil {
		return nil, err
	}
	return drawAll(next), nil
}
