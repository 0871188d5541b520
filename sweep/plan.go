package sweep

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Arrival names an open-loop arrival process: how the gaps between
// consecutive requests are drawn.
type Arrival string

// The arrival processes of --arrival.
const (
	Constant Arrival = "constant" // every gap is 1/λ
	Poisson  Arrival = "poisson"  // exponential gaps, mean 1/λ (CV 1)
	Gamma    Arrival = "gamma"    // gamma gaps of shape B, mean 1/λ (CV 1/√B; B = 1 is Poisson)
)

// RateSpec is the open-loop part of a Config: the arrival process and the
// seed its plans are drawn from.
type RateSpec struct {
	Arrival Arrival
	// Burstiness is the gamma shape B (Gamma only; zero means 1).
	Burstiness float64
	Seed       int64
	// Part, when its Of is above 1, makes this process one shard of a
	// sharded run: its plans are the shard's part of the whole run's plan.
	Part Part
}

// Part is shard Index of Of: of a plan it keeps the arrivals j with
// j ≡ Index (mod Of). Every shard draws the same whole plan from the
// seed, so the shards' parts are disjoint and together are exactly the
// plan one process would run. The zero Part keeps everything.
type Part struct{ Index, Of int }

// of returns the part's arrivals of a whole plan, in order: its i-th is the
// plan's arrival i×Of + Index.
func (p Part) of(plan []time.Duration) []time.Duration {
	if p.Of <= 1 {
		return plan
	}
	part := make([]time.Duration, 0, len(plan)/p.Of+1)
	for j := p.Index; j < len(plan); j += p.Of {
		part = append(part, plan[j])
	}
	return part
}

// ArrivalPlan draws n scheduled instants at mean rate λ (requests per
// second), as offsets from the level's start: the first at 0, then one gap
// per request. The plan depends on the spec, λ, n and the repeat only, so
// the same seed gives the same plan. It is drawn before the level starts.
// A shard (sp.Part) gets its part of the n arrivals.
func (sp RateSpec) ArrivalPlan(rate float64, n, repeat int) ([]time.Duration, error) {
	plan, err := sp.wholePlan(rate, n, repeat)
	return sp.Part.of(plan), err
}

// wholePlan is ArrivalPlan of the whole run, whatever sp.Part.
func (sp RateSpec) wholePlan(rate float64, n, repeat int) ([]time.Duration, error) {
	if !(rate > 0) || math.IsInf(rate, 0) {
		return nil, fmt.Errorf("sweep: invalid rate %v", rate)
	}
	mean := 1 / rate // seconds
	rng := rand.New(rand.NewPCG(uint64(sp.Seed), math.Float64bits(rate)^uint64(repeat)))
	var gap func() float64
	switch sp.Arrival {
	case Constant, "":
		gap = func() float64 { return mean }
	case Poisson:
		gap = func() float64 { return mean * rng.ExpFloat64() }
	case Gamma:
		b := sp.Burstiness
		if b == 0 {
			b = 1
		}
		if !(b > 0) || math.IsInf(b, 0) {
			return nil, fmt.Errorf("sweep: invalid burstiness %v", b)
		}
		gap = func() float64 { return mean / b * gammaVariate(rng, b) }
	default:
		return nil, fmt.Errorf("sweep: unknown arrival %q", sp.Arrival)
	}
	plan := make([]time.Duration, n)
	var t float64
	for i := range plan {
		if i > 0 {
			t += gap()
		}
		plan[i] = time.Duration(math.Round(t * 1e9))
	}
	return plan, nil
}

// planUntil draws a plan whose instants stay below d (at least one); a
// shard gets its part of it (which may be empty).
func (sp RateSpec) planUntil(rate float64, d time.Duration, repeat int) ([]time.Duration, error) {
	n := int(math.Ceil(rate*d.Seconds())) + 1
	for {
		plan, err := sp.wholePlan(rate, n, repeat)
		if err != nil || plan[n-1] >= d || n >= maxPlan {
			for len(plan) > 1 && plan[len(plan)-1] >= d {
				plan = plan[:len(plan)-1]
			}
			return sp.Part.of(plan), err
		}
		n = min(2*n, maxPlan)
	}
}

// PlanLen is how many arrivals the whole plan of a level bounded by d
// holds, whatever sp.Part: the arrivals the shards share out.
func (sp RateSpec) PlanLen(rate float64, d time.Duration, repeat int) (int, error) {
	sp.Part = Part{}
	plan, err := sp.planUntil(rate, d, repeat)
	return len(plan), err
}

// maxPlan bounds a level's plan: a mistyped rate or duration must not
// allocate without bound.
const maxPlan = 1 << 22

// gammaVariate draws from Gamma(shape k, scale 1): Marsaglia and Tsang's
// squeeze method, with the usual boost for k < 1 (draw at k+1, scale by
// U^(1/k)).
func gammaVariate(rng *rand.Rand, k float64) float64 {
	if k < 1 {
		u := rng.Float64()
		for u == 0 {
			u = rng.Float64()
		}
		return gammaVariate(rng, k+1) * math.Pow(u, 1/k)
	}
	d := k - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}
