package sessions

import (
	"time"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/sweep"
)

// Estimate is the sessions' time estimate: the closed loop's of the same
// levels, with Think, the mean pause before a turn (think time or tool
// wait), counted before every turn (mode.Timing.Think).
type Estimate struct {
	Closed mode.Estimate
	Think  time.Duration
}

var _ mode.Estimate = Estimate{}

func (e Estimate) think(p mode.Timing) mode.Timing { p.Think = e.Think; return p }

// UpFront is the closed loop's with the think time, as are Runs,
// TimeLeft, PerRequest and Alone.
func (e Estimate) UpFront(p mode.Timing) string { return e.Closed.UpFront(e.think(p)) }
func (e Estimate) Runs(p mode.Timing) int       { return e.Closed.Runs(e.think(p)) }
func (e Estimate) TimeLeft(p mode.Timing, done int, perRequest time.Duration) time.Duration {
	return e.Closed.TimeLeft(e.think(p), done, perRequest)
}
func (e Estimate) PerRequest(p mode.Timing, k sweep.LevelKey, elapsed time.Duration) (time.Duration, bool) {
	return e.Closed.PerRequest(e.think(p), k, elapsed)
}
func (e Estimate) Alone(p mode.Timing, k sweep.LevelKey, at time.Duration) time.Duration {
	return e.Closed.Alone(e.think(p), k, at)
}
