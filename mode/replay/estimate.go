package replay

import (
	"fmt"
	"time"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/sweep"
	"github.com/toksweep/toksweep/workload/trace"
)

// Estimate is the replay mode's estimate: its speeds (or Auto), from the
// trace's summary. Its levels are not re-estimated as the sweep goes:
// Runs, TimeLeft and PerRequest say none, and Alone is the time given.
type Estimate struct {
	Summary trace.Summary
	Speeds  []float64
	Auto    bool
}

var _ mode.Estimate = Estimate{}

// Runs is 0: no re-estimate.
func (Estimate) Runs(mode.Timing) int { return 0 }

// TimeLeft is 0: no re-estimate.
func (Estimate) TimeLeft(mode.Timing, int, time.Duration) time.Duration { return 0 }

// PerRequest measures none.
func (Estimate) PerRequest(mode.Timing, sweep.LevelKey, time.Duration) (time.Duration, bool) {
	return 0, false
}

// Alone is at.
func (Estimate) Alone(_ mode.Timing, _ sweep.LevelKey, at time.Duration) time.Duration { return at }

// UpFront for a trace replay: each level sends the trace's requests (less
// the warm-up, at most --requests) over its span divided by the speed,
// then the longest request's time.
func (l Estimate) UpFront(p mode.Timing) string {
	n := max(l.Summary.Requests-p.Warmup, 0)
	if p.Requests > 0 {
		n = min(n, p.Requests)
	}
	per := time.Duration(float64(l.Summary.Output.Max) / mode.AssumedStreamTPS * float64(time.Second))
	how := fmt.Sprintf("(up to %d output tokens each, %s a request at an assumed %d tok/s per stream)", l.Summary.Output.Max, mode.RoundDur(per), mode.AssumedStreamTPS)
	if l.Auto {
		return fmt.Sprintf("speeds are chosen as the sweep goes; a level replays %d requests of the trace over its %s span / the speed %s", n, mode.RoundDur(l.Summary.Span), how)
	}
	var total time.Duration
	for _, s := range l.Speeds {
		total += time.Duration(max(p.Repeat, 1)) * (time.Duration(float64(l.Summary.Span)/s) + per)
	}
	runs := p.RunsText(len(l.Speeds), "speed")
	return fmt.Sprintf("the sweep takes %s: %s × %d requests of the trace over its %s span / the speed %s", mode.About(total), runs, n, mode.RoundDur(l.Summary.Span), how)
}
