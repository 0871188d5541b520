package rate

import (
	"math"
	"time"

	"github.com/toksweep/toksweep/mode/openloop"
	"github.com/toksweep/toksweep/sweep"
)

// Load is a rate sweep (sweep.Config.Load): its offered rates, run in
// order, or the Chooser's choices, each level's arrivals drawn from Spec
// at its rate, at most Cap in flight (0: no cap).
type Load struct {
	Rates   []float64
	Chooser openloop.Chooser // when set, instead of Rates
	Spec    sweep.RateSpec
	Cap     int
}

var _ sweep.Load = (*Load)(nil)

// Mode is Name.
func (*Load) Mode() string { return Name }

// Keys iterates over the rates: the chooser's, else the list.
func (l *Load) Keys() func() (sweep.LevelKey, bool) {
	return openloop.Keys(Name, l.Cap, l.Rates, l.Chooser)
}

// Measured is the requests given, else AutoRequests(rate).
func (*Load) Measured(cfg *sweep.Config, k sweep.LevelKey) int {
	if cfg.Requests <= 0 {
		return AutoRequests(k.Load)
	}
	return cfg.Requests
}

// AutoRequests is the default number of measured requests at offered
// rate λ: ten seconds of arrivals, and at least 20.
func AutoRequests(rate float64) int { return max(int(math.Ceil(10*rate)), 20) }

// Arrivals is the open loop over a schedule drawn as it goes. A level
// bounded by Duration alone (measured sweep.Unlimited) draws the warm-up
// arrivals plus Duration; one with a count too ends at Duration (the
// tickets close the level then).
func (l *Load) Arrivals(cfg *sweep.Config, k sweep.LevelKey, measured, repeat int) (sweep.Arrivals, error) {
	n := cfg.Warmup + measured
	var until time.Duration
	if measured == sweep.Unlimited {
		n = 0
		warm := float64(cfg.Warmup) / k.Load * float64(time.Second)
		until = time.Duration(min(warm+float64(cfg.Duration), math.MaxInt64/2))
	}
	next, err := l.Spec.Schedule(k.Load, n, until, repeat)
	return sweep.OpenLoop(next), err
}

// WarmConns is the cap, else about a second's arrivals (at most 64).
func (*Load) WarmConns(k sweep.LevelKey) int {
	if !openloop.Uncapped(k) {
		return k.Concurrency
	}
	return min(max(int(math.Ceil(k.Load)), 1), 64)
}

// AbortAfter is the open loop's.
func (*Load) AbortAfter(k sweep.LevelKey) int { return openloop.AbortAfter(k) }
