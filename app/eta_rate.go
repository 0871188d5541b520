package app

import (
	"fmt"
	"math"
	"time"

	"github.com/toksweep/toksweep/sweep"
)

// rateRequests is how many measured requests a level at rate r offers:
// --requests, else with --duration alone its arrivals in the duration
// (the level has no count), else sweep.AutoRateRequests.
func (p sweepPlan) rateRequests(r float64) int {
	switch {
	case p.requests > 0:
		return p.requests
	case p.duration > 0:
		return int(min(math.Ceil(r*p.duration.Seconds()), math.MaxInt32))
	}
	return sweep.AutoRateRequests(r)
}

// rateLevelTime estimates one run of an open-loop level at rate r: its
// arrivals (warm-up included) at r, bounded by the duration, then the last
// request's time.
func (p sweepPlan) rateLevelTime(r float64, perRequest time.Duration) time.Duration {
	warm := float64(p.warmup) / r * float64(time.Second)
	t := warm + float64(p.rateRequests(r))/r*float64(time.Second)
	if p.duration > 0 && (p.requests == 0 || t > warm+float64(p.duration)) {
		t = warm + float64(p.duration)
	}
	return time.Duration(min(t, math.MaxInt64/4)) + perRequest
}

// rateLevels is the rate mode's estimate: the offered rates in run order
// (--rates), re-estimated as each level ends, or auto: chosen as the sweep
// goes (--rates auto), with no rates known before.
type rateLevels struct {
	rates []float64
	auto  bool
}

var _ estimate = rateLevels{}

func (l rateLevels) runs(p sweepPlan) int { return len(l.rates) * p.repeat }

func (l rateLevels) timeLeft(p sweepPlan, done int, perRequest time.Duration) time.Duration {
	var t time.Duration
	run := 0
	for _, r := range l.rates {
		for range p.repeat {
			if run >= done {
				t += p.rateLevelTime(r, perRequest)
			}
			run++
		}
	}
	return t
}

// perRequest: an open-loop level lasts its arrivals, then the last
// request's time, whatever the server does. A level that ended within its
// arrivals' time (a --duration bound reached, or a schedule that ran
// early) gives 0: it measured none (the re-estimate line then says none
// and keeps the last time measured; the live line's projection adds no
// request time).
func (rateLevels) perRequest(p sweepPlan, k sweep.LevelKey, elapsed time.Duration) (time.Duration, bool) {
	if !k.IsOpen() || !(k.Load > 0) {
		return 0, false
	}
	return max(elapsed-p.rateLevelTime(k.Load, 0), 0), true
}

// alone: an open loop's request time is what the server gives at the
// rate; nothing known scales it to the levels left.
func (rateLevels) alone(_ sweepPlan, _ sweep.LevelKey, at time.Duration) time.Duration { return at }

// upFront for an open loop: the levels are offered rates, each a count of
// requests at its rate (or --duration), not requests per worker.
func (l rateLevels) upFront(p sweepPlan) string {
	per := p.assumedPerRequest()
	how := fmt.Sprintf("(up to %.0f output tokens each, %s a request at an assumed %d tok/s per stream)",
		p.tokens, roundDur(per), assumedStreamTPS)
	if len(l.rates) == 0 {
		const chosen = "rates are chosen as the sweep goes; a level offers "
		switch {
		case p.requests > 0 && p.duration > 0:
			return fmt.Sprintf(chosen+"%d requests at its rate, or fewer if %s (--duration) ends first %s", p.requests, p.duration, how)
		case p.requests > 0:
			return fmt.Sprintf(chosen+"%d requests at its rate %s", p.requests, how)
		case p.duration > 0:
			return fmt.Sprintf(chosen+"%s (--duration) of arrivals at its rate %s", p.duration, how)
		}
		return fmt.Sprintf(chosen+"about 10s of arrivals at its rate (at least %d requests) %s", sweep.AutoRateRequests(0), how)
	}
	var total time.Duration
	lo, hi := math.MaxInt, 0
	for _, r := range l.rates {
		total += time.Duration(p.repeat) * p.rateLevelTime(r, per)
		lo, hi = min(lo, p.rateRequests(r)), max(hi, p.rateRequests(r))
	}
	count := span(float64(lo), float64(hi))
	runs := p.runsText(len(l.rates), "rate")
	switch {
	case p.duration > 0 && p.requests == 0:
		return fmt.Sprintf("the sweep takes %s: %s × %s (--duration) of arrivals at the offered rate, about %s requests %s",
			about(total), runs, p.duration, count, how)
	case p.duration > 0:
		return fmt.Sprintf("the sweep takes %s: %s × up to %s (--duration) or %s requests at the offered rate %s",
			about(total), runs, p.duration, count, how)
	}
	return fmt.Sprintf("the sweep takes %s: %s × %s requests at the offered rate %s", about(total), runs, count, how)
}
