package search

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// The bounds of --rates auto's search.
const (
	rateAutoStart     = 1    // req/s: the first, near-synchronous level
	rateAutoGrowth    = 4    // the ramp's factor while every level passes
	RateAutoLevels    = 8    // at most this many levels in all
	rateAutoSpread    = 1.10 // stop bisecting when fail/pass ≤ this ratio
	rateAutoBackoff   = 0.9  // the first guess after an unstable level: this share of its achieved rate
	rateAutoSaturated = 0.8  // an unstable level measured the maximum throughput only if achieved ≤ this share of offered
)

// Rates is the search of --rates auto (a sweep.RatePlanner). It
// first runs a low, near-synchronous rate (1 req/s), then ramps ×4 while
// levels pass, so that within a few levels one fails. A failing level that
// was unstable measured the server's maximum throughput: its achieved rate;
// the next guess is 90% of it, and no rate above it / (1 − ShortfallMax) can
// be stable. From then on it bisects geometrically between the highest
// passing rate and the lower of the lowest failing rate and that ceiling,
// until they are within 10% of each other. It runs at most RateAutoLevels levels. Rates
// are rounded to 3 significant digits.
type Rates struct {
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
	// Start is the first rate tried; 0 means 1 req/s. The speed search
	// (Speeds) starts at speed 1.
	Start float64
	// offered is each rate's mean realised arrival rate, what the answer
	// quotes (its plan offered it; the nominal rate is in brackets).
	offered map[float64]float64
}

func NewRates(judge func(float64) mode.RateVerdict, maxRate float64) *Rates {
	return &Rates{judge: judge, max: maxRate}
}

// NextRate implements sweep.RatePlanner.
func (p *Rates) NextRate() (float64, bool) {
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
	if p.lo == 0 || len(p.tried) >= RateAutoLevels || (top > 0 && top <= rateAutoSpread*p.lo) {
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
func (p *Rates) top() float64 {
	if p.ceil > 0 && (p.hi == 0 || p.ceil < p.hi) {
		return p.ceil
	}
	return p.hi
}

func (p *Rates) hand(r float64) (float64, bool) {
	p.tried = append(p.tried, r)
	return r, true
}

// Sentence is the search's answer for the closing paragraph.
func (p *Rates) Sentence() string {
	tried := JoinRates(p.tried)
	switch {
	case p.lo == 0:
		return fmt.Sprintf("--rates auto: no rate tried was stable and met the SLO (tried %s req/s).", tried)
	case p.hi == 0:
		return fmt.Sprintf("--rates auto: the highest stable rate meeting the SLO is at least %s, the last tried within %d levels (tried %s req/s).", p.answer(), RateAutoLevels, tried)
	}
	s := fmt.Sprintf("--rates auto: the highest stable rate meeting the SLO is %s; %s failed", p.answer(), p.said(p.hi))
	if p.ceil > 0 {
		s += fmt.Sprintf(", and no rate above %.3g req/s can be stable (maximum throughput measured %.3g req/s)", p.ceil, p.ceil*(1-report.ShortfallMax))
	}
	return s + fmt.Sprintf(" (tried %s req/s).", tried)
}

// JoinRates lists rates as the flags take them: "1,2.5,4".
func JoinRates(rs []float64) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = strconv.FormatFloat(r, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}

// answer is the highest passing rate as offered, the nominal in brackets
// (sweep.RateText): "23.93 req/s offered (nominal 25.1)".
func (p *Rates) answer() string { return p.said(p.lo) }

// said is tried rate r in sweep.RateText's words.
func (p *Rates) said(r float64) string { return sweep.RateText(p.offered[r], r) }

// round3 rounds r to 3 significant digits.
func round3(r float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(r, 'g', 3, 64), 64)
	return v
}
