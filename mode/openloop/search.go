package openloop

import (
	"cmp"
	"math"
	"strconv"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/report"
)

// The bounds of the search.
const (
	rateAutoStart     = 1    // the first, near-synchronous load (1 req/s, speed 1)
	rateAutoGrowth    = 4    // the ramp's factor while every level passes
	MaxLevels         = 8    // at most this many levels in all
	rateAutoSpread    = 1.10 // stop bisecting when fail/pass ≤ this ratio
	rateAutoBackoff   = 0.9  // the first guess after an unstable level: this share of its achieved rate
	rateAutoSaturated = 0.8  // an unstable level measured the maximum throughput only if achieved ≤ this share of offered
)

// Search is the open-loop modes' search of the highest stable load meeting
// the SLO (--rates auto, --replay-speed auto), over a load in requests per
// second or in any unit whose judge speaks it (a replay's speed). It
// first runs a low, near-synchronous rate (1 req/s), then ramps ×4 while
// levels pass, so that within a few levels one fails. A failing level that
// was unstable measured the server's maximum throughput: its achieved rate;
// the next guess is 90% of it, and no rate above it / (1 − ShortfallMax) can
// be stable. From then on it bisects geometrically between the highest
// passing rate and the lower of the lowest failing rate and that ceiling,
// until they are within 10% of each other. It runs at most MaxLevels levels. Rates
// are rounded to 3 significant digits.
type Search struct {
	judge  func(rate float64) mode.RateVerdict
	max    float64 // the highest rate it may try
	tried  []float64
	lo, hi float64 // highest passing, lowest failing (0: none yet)
	// ceil is the highest rate that can be stable given the lowest maximum
	// throughput X measured so far (the achieved rate of an unstable level
	// that completed at most rateAutoSaturated of its arrivals, so that a
	// short level's noise is not taken for saturation): a
	// stable level completes at least (1 − ShortfallMax) of its arrivals, so
	// no rate above X / (1 − ShortfallMax) is tried. 0: none measured.
	ceil float64
	done bool
	// Start is the first rate tried; 0 means 1.
	Start float64
	// offered is each rate's mean realised arrival rate, what the answer
	// quotes (its plan offered it; the nominal rate is in brackets).
	offered map[float64]float64
}

// NewSearch is the search of loads up to maxLoad, each level judged by
// judge.
func NewSearch(judge func(float64) mode.RateVerdict, maxLoad float64) *Search {
	return &Search{judge: judge, max: maxLoad}
}

// Next is the next load to run, once the last one handed out is judged;
// ok is false when the search is over (a Chooser).
func (p *Search) Next() (float64, bool) {
	if p.done {
		return 0, false
	}
	if len(p.tried) == 0 {
		return p.hand(cmp.Or(p.Start, rateAutoStart))
	}
	last := p.tried[len(p.tried)-1]
	v := p.judge(last)
	guess := 0.0
	if p.offered == nil {
		p.offered = map[float64]float64{}
	}
	p.offered[last] = v.Offered
	switch {
	case v.Pass:
		p.lo = max(p.lo, last)
		if p.hi == 0 && p.ceil == 0 {
			guess = min(last*rateAutoGrowth, p.max) // the ramp: not rounded
		}
	default:
		if p.hi == 0 || last < p.hi {
			p.hi = last
		}
		if v.Unstable && v.Achieved > 0 {
			guess = rateAutoBackoff * v.Achieved
			if c := v.Achieved / (1 - report.ShortfallMax); v.Achieved <= rateAutoSaturated*v.Offered && (p.ceil == 0 || c < p.ceil) {
				p.ceil = c
			}
		}
	}
	top := p.top()
	if p.lo == 0 || len(p.tried) >= MaxLevels || (top > 0 && top <= rateAutoSpread*p.lo) {
		p.done = true
		return 0, false
	}
	if top > 0 && !(guess > p.lo*math.Sqrt(rateAutoSpread) && guess < top/math.Sqrt(rateAutoSpread)) {
		guess = math.Sqrt(p.lo * top) // geometric midpoint
	}
	if top > 0 {
		guess = round3(guess)
	}
	if guess <= p.lo || (top > 0 && guess >= top) {
		p.done = true
		return 0, false
	}
	return p.hand(guess)
}

// top is the upper end of the search: the lowest failing rate, or the
// ceiling below it (0: neither known yet).
func (p *Search) top() float64 {
	if p.ceil > 0 && (p.hi == 0 || p.ceil < p.hi) {
		return p.ceil
	}
	return p.hi
}

func (p *Search) hand(r float64) (float64, bool) {
	p.tried = append(p.tried, r)
	return r, true
}

// Result is where the search stands: the loads tried in order, the
// highest that passed and the lowest that failed (0: none), the ceiling
// no stable load can pass (0: none measured), and the load each tried
// level's plan offered (its realised arrival rate, in the judge's unit).
type Result struct {
	Tried      []float64
	Pass, Fail float64
	Ceil       float64
	Offered    map[float64]float64
}

// Result is the search's state, for its mode's sentence.
func (p *Search) Result() Result {
	return Result{Tried: p.tried, Pass: p.lo, Fail: p.hi, Ceil: p.ceil, Offered: p.offered}
}

// round3 rounds r to 3 significant digits.
func round3(r float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(r, 'g', 3, 64), 64)
	return v
}
