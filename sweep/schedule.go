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
// seed its schedules are drawn from.
type RateSpec struct {
	Arrival Arrival
	// Burstiness is the gamma shape B (Gamma only; zero means 1).
	Burstiness float64
	Seed       int64
	// Part, when its Of is above 1, makes this process one shard of a
	// sharded run: its schedules are the shard's part of the whole run's schedule.
	Part Part
}

// Part is shard Index of Of: of a schedule it keeps the arrivals j with
// j ≡ Index (mod Of). Every shard draws the same whole schedule from the
// seed, so the shards' parts are disjoint and together are exactly the
// schedule one process would run. The zero Part keeps everything.
type Part struct{ Index, Of int }

// Instants draws n scheduled instants at mean rate λ (requests per
// second), as offsets from the level's start: the first at 0, then one gap
// per request. The schedule depends on the spec, λ, n and the repeat only, so
// the same seed gives the same schedule. A shard (sp.Part) gets its part of the
// n arrivals. The sweep itself draws its schedules lazily (Schedule); this
// collects one, and refuses one longer than MaxInstants.
func (sp RateSpec) Instants(rate float64, n, repeat int) ([]time.Duration, error) {
	if n > MaxInstants {
		return nil, fmt.Errorf("sweep: a schedule of %d arrivals is over the %d a collected schedule holds", n, MaxInstants)
	}
	next, err := sp.Schedule(rate, n, 0, repeat)
	if err != nil {
		return nil, err
	}
	return drawAll(next), nil
}

// Schedule is an open-loop level's arrival schedule, drawn lazily: each call
// returns the next arrival's offset from the level's start, in order, and
// false once the schedule holds no more. Drawing lazily keeps a level's memory
// independent of its rate and duration.
type Schedule func() (at time.Duration, ok bool)

// Schedule returns the schedule of at most n arrivals (n ≤ 0: no count bound)
// whose instants stay below d (d ≤ 0: no time bound; the first arrival, at
// 0, is always in it). A shard (sp.Part) gets its part of that schedule, which
// may be empty. It fails only on a spec or rate that cannot be drawn.
func (sp RateSpec) Schedule(rate float64, n int, d time.Duration, repeat int) (Schedule, error) {
	gap, err := sp.gaps(rate, repeat)
	if err != nil {
		return nil, err
	}
	i := 0
	var t float64 // seconds
	whole := func() (time.Duration, bool) {
		if n > 0 && i >= n {
			return 0, false
		}
		if i > 0 {
			t += gap()
		}
		ns := math.Round(t * 1e9)
		if ns >= math.MaxInt64 || (d > 0 && i > 0 && time.Duration(ns) >= d) {
			n, i = 1, 1 // the schedule is over: every later call says so
			return 0, false
		}
		i++
		return time.Duration(ns), true
	}
	return sp.Part.schedule(whole), nil
}

// gaps returns the draw of one gap, in seconds, between consecutive
// arrivals at mean rate λ.
func (sp RateSpec) gaps(rate float64, repeat int) (func() float64, error) {
	if math.IsNaN(rate) || rate <= 0 || math.IsInf(rate, 0) {
		return nil, fmt.Errorf("sweep: invalid rate %v", rate)
	}
	mean := 1 / rate // seconds
	rng := rand.New(rand.NewPCG(uint64(sp.Seed), math.Float64bits(rate)^uint64(repeat)))
	switch sp.Arrival {
	case Constant, "":
		return func() float64 { return mean }, nil
	case Poisson:
		return func() float64 { return mean * rng.ExpFloat64() }, nil
	case Gamma:
		b := sp.Burstiness
		if b == 0 {
			b = 1
		}
		if !(b > 0) || math.IsInf(b, 0) {
			return nil, fmt.Errorf("sweep: invalid burstiness %v", b)
		}
		return func() float64 { return mean / b * gammaVariate(rng, b) }, nil
	}
	return nil, fmt.Errorf("sweep: unknown arrival %q", sp.Arrival)
}

// schedule returns the part's arrivals of a whole schedule, in order: its i-th
// is the schedule's arrival i×Of + Index.
func (p Part) schedule(whole Schedule) Schedule {
	if p.Of <= 1 {
		return whole
	}
	j := 0 // the whole schedule's index of the next arrival drawn
	return func() (time.Duration, bool) {
		for {
			at, ok := whole()
			if !ok {
				return 0, false
			}
			j++
			if (j-1)%p.Of == p.Index {
				return at, true
			}
		}
	}
}

// drawAll draws the rest of a schedule.
func drawAll(next Schedule) []time.Duration {
	var instants []time.Duration
	for at, ok := next(); ok; at, ok = next() {
		instants = append(instants, at)
	}
	return instants
}

// CountArrivals is how many arrivals the whole schedule of a level bounded by d
// holds, whatever sp.Part (the arrivals the shards share out), counted up
// to atMost: the count is drawn, so it is bounded like everything else.
func (sp RateSpec) CountArrivals(rate float64, d time.Duration, repeat, atMost int) (int, error) {
	sp.Part = Part{}
	next, err := sp.Schedule(rate, atMost, d, repeat)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, ok := next(); ok; _, ok = next() {
		n++
	}
	return n, nil
}

// MaxInstants bounds a collected schedule (Instants): a mistyped count must not
// allocate without bound. The sweep's own schedules are drawn lazily and need
// no such bound.
const MaxInstants = 1 << 22

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
