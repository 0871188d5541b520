package app

import (
	"fmt"
	"time"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/sweep"
)

// replayLevels is the replay mode's estimate: its speeds, from the
// trace's summary. Its levels are not re-estimated as the sweep goes.
type replayLevels struct{ r *replaySettings }

var _ mode.Estimate = replayLevels{}

func (replayLevels) Runs(mode.Timing) int                                   { return 0 }
func (replayLevels) TimeLeft(mode.Timing, int, time.Duration) time.Duration { return 0 }
func (replayLevels) PerRequest(mode.Timing, sweep.LevelKey, time.Duration) (time.Duration, bool) {
	return 0, false
}
func (replayLevels) Alone(_ mode.Timing, _ sweep.LevelKey, at time.Duration) time.Duration { return at }

// UpFront for a trace replay: each level sends the trace's requests (less
// the warm-up, at most --requests) over its span divided by the speed,
// then the longest request's time.
func (l replayLevels) UpFront(p mode.Timing) string {
	r := l.r
	n := max(r.sum.Requests-p.Warmup, 0)
	if p.Requests > 0 {
		n = min(n, p.Requests)
	}
	per := time.Duration(float64(r.sum.Output.Max) / mode.AssumedStreamTPS * float64(time.Second))
	how := fmt.Sprintf("(up to %d output tokens each, %s a request at an assumed %d tok/s per stream)", r.sum.Output.Max, mode.RoundDur(per), mode.AssumedStreamTPS)
	if r.auto {
		return fmt.Sprintf("speeds are chosen as the sweep goes; a level replays %d requests of the trace over its %s span / the speed %s", n, mode.RoundDur(r.sum.Span), how)
	}
	var total time.Duration
	for _, s := range r.speeds {
		total += time.Duration(max(p.Repeat, 1)) * (time.Duration(float64(r.sum.Span)/s) + per)
	}
	runs := p.RunsText(len(r.speeds), "speed")
	return fmt.Sprintf("the sweep takes %s: %s × %d requests of the trace over its %s span / the speed %s", mode.About(total), runs, n, mode.RoundDur(r.sum.Span), how)
}
