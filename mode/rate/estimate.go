package rate

import (
	"fmt"
	"math"
	"time"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/sweep"
)

// rateRequests is how many measured requests a level at rate r offers:
// --requests, else with --duration alone its arrivals in the duration
// (the level has no count), else AutoRequests.
func rateRequests(p mode.Timing, r float64) int {
	switch {
	case p.Requests > 0:
		return p.Requests
	case p.Duration > 0:
		return int(min(math.Ceil(r*p.Duration.Seconds()), math.MaxInt32))
	}
	return AutoRequests(r)
}

// rateLevelTime estimates one run of an open-loop level at rate r: its
// arrivals (warm-up included) at r, bounded by the duration, then the last
// request's time.
func rateLevelTime(p mode.Timing, r float64, perRequest time.Duration) time.Duration {
	warm := float64(p.Warmup) / r * float64(time.Second)
	t := warm + float64(rateRequests(p, r))/r*float64(time.Second)
	if p.Duration > 0 && (p.Requests == 0 || t > warm+float64(p.Duration)) {
		t = warm + float64(p.Duration)
	}
	return time.Duration(min(t, math.MaxInt64/4)) + perRequest
}

// Estimate is the rate mode's estimate: the offered rates in run order
// (--rates), re-estimated as each level ends, or Auto: chosen as the sweep
// goes (--rates auto), with no rates known before.
type Estimate struct {
	Rates []float64
	Auto  bool
}

var _ mode.Estimate = Estimate{}

// Runs is each rate's runs.
func (l Estimate) Runs(p mode.Timing) int { return len(l.Rates) * p.Repeat }

// TimeLeft is the time of the runs after the first done.
func (l Estimate) TimeLeft(p mode.Timing, done int, perRequest time.Duration) time.Duration {
	var t time.Duration
	run := 0
	for _, r := range l.Rates {
		for range p.Repeat {
			if run >= done {
				t += rateLevelTime(p, r, perRequest)
			}
			run++
		}
	}
	return t
}

// PerRequest is what is left of a run past its arrivals: an open-loop level lasts its arrivals, then the last
// request's time, whatever the server does. A level that ended within its
// arrivals' time (a --duration bound reached, or a schedule that ran
// early) gives 0: it measured none (the re-estimate line then says none
// and keeps the last time measured; the live line's projection adds no
// request time).
func (Estimate) PerRequest(p mode.Timing, k sweep.LevelKey, elapsed time.Duration) (time.Duration, bool) {
	if !k.IsOpen() || !(k.Load > 0) {
		return 0, false
	}
	return max(elapsed-rateLevelTime(p, k.Load, 0), 0), true
}

// Alone is at: an open loop's request time is what the server gives at the
// rate; nothing known scales it to the levels left.
func (Estimate) Alone(_ mode.Timing, _ sweep.LevelKey, at time.Duration) time.Duration { return at }

// UpFront is the line before the first level: the levels are offered rates, each a count of
// requests at its rate (or --duration), not requests per worker.
func (l Estimate) UpFront(p mode.Timing) string {
	per := p.AssumedPerRequest()
	how := fmt.Sprintf("(up to %.0f output tokens each, %s a request at an assumed %d tok/s per stream)",
		p.Tokens, mode.RoundDur(per), mode.AssumedStreamTPS)
	if len(l.Rates) == 0 {
		const chosen = "rates are chosen as the sweep goes; a level offers "
		switch {
		case p.Requests > 0 && p.Duration > 0:
			return fmt.Sprintf(chosen+"%d requests at its rate, or fewer if %s (--duration) ends first %s", p.Requests, p.Duration, how)
		case p.Requests > 0:
			return fmt.Sprintf(chosen+"%d requests at its rate %s", p.Requests, how)
		case p.Duration > 0:
			return fmt.Sprintf(chosen+"%s (--duration) of arrivals at its rate %s", p.Duration, how)
		}
		return fmt.Sprintf(chosen+"about 10s of arrivals at its rate (at least %d requests) %s", AutoRequests(0), how)
	}
	var total time.Duration
	lo, hi := math.MaxInt, 0
	for _, r := range l.Rates {
		total += time.Duration(p.Repeat) * rateLevelTime(p, r, per)
		lo, hi = min(lo, rateRequests(p, r)), max(hi, rateRequests(p, r))
	}
	count := mode.Span(float64(lo), float64(hi))
	runs := p.RunsText(len(l.Rates), "rate")
	switch {
	case p.Duration > 0 && p.Requests == 0:
		return fmt.Sprintf("the sweep takes %s: %s × %s (--duration) of arrivals at the offered rate, about %s requests %s",
			mode.About(total), runs, p.Duration, count, how)
	case p.Duration > 0:
		return fmt.Sprintf("the sweep takes %s: %s × up to %s (--duration) or %s requests at the offered rate %s",
			mode.About(total), runs, p.Duration, count, how)
	}
	return fmt.Sprintf("the sweep takes %s: %s × %s requests at the offered rate %s", mode.About(total), runs, count, how)
}
