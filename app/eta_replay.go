package app

import (
	"fmt"
	"time"

	"github.com/toksweep/toksweep/sweep"
)

// replayLevels is the replay mode's estimate: its speeds, from the
// trace's summary. Its levels are not re-estimated as the sweep goes.
type replayLevels struct{ r *replaySettings }

var _ estimate = replayLevels{}

func (replayLevels) runs(sweepPlan) int                                   { return 0 }
func (replayLevels) timeLeft(sweepPlan, int, time.Duration) time.Duration { return 0 }
func (replayLevels) perRequest(sweepPlan, sweep.LevelKey, time.Duration) (time.Duration, bool) {
	return 0, false
}
func (replayLevels) alone(_ sweepPlan, _ sweep.LevelKey, at time.Duration) time.Duration { return at }

// upFront for a trace replay: each level sends the trace's requests (less
// the warm-up, at most --requests) over its span divided by the speed,
// then the longest request's time.
func (l replayLevels) upFront(p sweepPlan) string {
	r := l.r
	n := max(r.sum.Requests-p.warmup, 0)
	if p.requests > 0 {
		n = min(n, p.requests)
	}
	per := time.Duration(float64(r.sum.Output.Max) / assumedStreamTPS * float64(time.Second))
	how := fmt.Sprintf("(up to %d output tokens each, %s a request at an assumed %d tok/s per stream)", r.sum.Output.Max, roundDur(per), assumedStreamTPS)
	if r.auto {
		return fmt.Sprintf("speeds are chosen as the sweep goes; a level replays %d requests of the trace over its %s span / the speed %s", n, roundDur(r.sum.Span), how)
	}
	var total time.Duration
	for _, s := range r.speeds {
		total += time.Duration(max(p.repeat, 1)) * (time.Duration(float64(r.sum.Span)/s) + per)
	}
	runs := p.runsText(len(r.speeds), "speed")
	return fmt.Sprintf("the sweep takes %s: %s × %d requests of the trace over its %s span / the speed %s", about(total), runs, n, roundDur(r.sum.Span), how)
}
