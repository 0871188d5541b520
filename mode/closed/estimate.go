package closed

import (
	"fmt"
	"math"
	"time"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/sweep"
)

// Estimate is the closed loop's time estimate (and the sessions'): its
// concurrencies in run order; nil when a search chooses them.
type Estimate []int

var _ mode.Estimate = Estimate(nil)

// UpFront is the line said before the first level.
func (l Estimate) UpFront(p mode.Timing) string {
	per := p.AssumedPerRequest()
	how := p.How(per)
	if len(l) == 0 {
		return fmt.Sprintf("levels are chosen as the sweep goes; a level takes %s: %.0f requests per worker %s",
			mode.About(p.LevelTime(4, per)), p.Rounds(4), how)
	}
	lo, hi := math.Inf(1), 0.0
	for _, c := range l {
		lo, hi = min(lo, p.Rounds(c)), max(hi, p.Rounds(c))
	}
	rounds := mode.Span(lo, hi)
	runs := p.RunsText(len(l), "level")
	if p.Duration > 0 {
		return fmt.Sprintf("the sweep takes %s: %s × up to %s (--duration) or %s requests per worker %s",
			mode.About(l.TimeLeft(p, 0, per)), runs, p.Duration, rounds, how)
	}
	return fmt.Sprintf("the sweep takes %s: %s × %s requests per worker %s", mode.About(l.TimeLeft(p, 0, per)), runs, rounds, how)
}

// Runs is the level runs planned.
func (l Estimate) Runs(p mode.Timing) int { return len(l) * max(p.Repeat, 1) }

// PerRequest divides by Rounds(C): a closed-loop level lasts Rounds(C) requests.
func (Estimate) PerRequest(p mode.Timing, k sweep.LevelKey, elapsed time.Duration) (time.Duration, bool) {
	r := p.Rounds(k.Concurrency)
	if !(r > 0) || k.Concurrency < 1 {
		return 0, false
	}
	return time.Duration(float64(elapsed) / r), true
}

// Alone is a request's time alone on the server, from its time at C.
func (Estimate) Alone(p mode.Timing, k sweep.LevelKey, at time.Duration) time.Duration {
	return p.Alone(k.Concurrency, at)
}

// TimeLeft is the time of the runs after the first done.
func (l Estimate) TimeLeft(p mode.Timing, done int, perRequest time.Duration) time.Duration {
	var t time.Duration
	run := 0
	for _, c := range l {
		for range max(p.Repeat, 1) {
			if run >= done {
				t += p.LevelTime(c, perRequest)
			}
			run++
		}
	}
	return t
}
