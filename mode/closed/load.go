package closed

import (
	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/sweep"
)

// Chooser chooses a closed loop's concurrencies one at a time (the
// adaptive Search). Next is called after the previous level (all its
// repeats) has been handed on, so that it can judge it first.
type Chooser interface {
	Next() (c int, ok bool)
}

// Load is a closed-loop sweep (sweep.Config.Load): its concurrencies,
// run in order, or the Chooser's choices; levels keyed as mode Name's
// (the sessions mode's levels are closed-loop levels too).
type Load struct {
	Name    string // the mode's name; "": sweep.ClosedMode
	Levels  []int
	Chooser Chooser // when set, instead of Levels
}

var _ sweep.Load = Load{}

// Run is what the load adds to the run's output: a tier search's
// sentence (its cost), when it chooses the levels.
func (l Load) Run() mode.Run {
	if s, ok := l.Chooser.(interface{ Sentence() string }); ok {
		return mode.Run{Search: s}
	}
	return mode.Run{}
}

// Mode is the load's mode name.
func (l Load) Mode() string {
	if l.Name == "" {
		return sweep.ClosedMode
	}
	return l.Name
}

// Keys iterates over the concurrencies: the chooser's, else the list.
func (l Load) Keys() func() (sweep.LevelKey, bool) {
	name, i := l.Mode(), 0
	return func() (sweep.LevelKey, bool) {
		if l.Chooser != nil {
			c, ok := l.Chooser.Next()
			return sweep.LevelKey{Mode: name, Concurrency: c}, ok
		}
		if i >= len(l.Levels) {
			return sweep.LevelKey{}, false
		}
		i++
		return sweep.LevelKey{Mode: name, Concurrency: l.Levels[i-1]}, true
	}
}

// Measured is the requests given, at least C of them (one per worker),
// else sweep.AutoRequests(C).
func (Load) Measured(cfg *sweep.Config, k sweep.LevelKey) int {
	if cfg.Requests <= 0 {
		return sweep.AutoRequests(k.Concurrency)
	}
	return max(cfg.Requests, k.Concurrency)
}

// Arrivals is the closed loop of C workers.
func (Load) Arrivals(_ *sweep.Config, k sweep.LevelKey, _, _ int) (sweep.Arrivals, error) {
	return sweep.ClosedLoop(k.Concurrency), nil
}

// WarmConns is one connection per worker.
func (Load) WarmConns(k sweep.LevelKey) int { return k.Concurrency }

// AbortAfter is every worker's first request.
func (Load) AbortAfter(k sweep.LevelKey) int { return max(k.Concurrency, 1) }
