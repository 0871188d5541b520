package replay

import (
	"fmt"
	"math"

	"github.com/toksweep/toksweep/mode/openloop"
	"github.com/toksweep/toksweep/sweep"
)

// Load is a replay sweep (sweep.Config.Load): the trace at its speeds, in
// order, or the Chooser's, at most Cap in flight (0: no cap). Salt is the
// run's: each level's prompts are salted with it, the speed and the
// repeat, so that no level and no run finds another's blocks cached.
type Load struct {
	Trace   *sweep.Replay
	Speeds  []float64
	Chooser openloop.Chooser // when set, instead of Speeds
	Cap     int
	Salt    uint64
}

var _ sweep.Load = (*Load)(nil)

// Mode is Name.
func (*Load) Mode() string { return Name }

// Keys iterates over the speeds: the chooser's, else the list.
func (l *Load) Keys() func() (sweep.LevelKey, bool) {
	return openloop.Keys(Name, l.Cap, l.Speeds, l.Chooser)
}

// Measured is the trace's requests less the warm-up, at most --requests.
func (l *Load) Measured(cfg *sweep.Config, _ sweep.LevelKey) int {
	return l.Trace.Measured(cfg.Warmup, cfg.Requests)
}

// Arrivals is the trace at the level's speed.
func (l *Load) Arrivals(_ *sweep.Config, k sweep.LevelKey, _, repeat int) (sweep.Arrivals, error) {
	if l.Trace == nil || !(k.Load > 0) {
		return nil, fmt.Errorf("replay level %s: no trace or no speed", k.Name())
	}
	return sweep.ReplayLoop(l.Trace, k.Load, LevelSalt(l.Salt, k.Load, repeat)), nil
}

// LevelSalt keys a replay level's prompts: the run's salt, the level's
// speed and its repeat.
func LevelSalt(run uint64, speed float64, repeat int) uint64 {
	return (math.Float64bits(speed)*0x9e3779b97f4a7c15 ^ uint64(repeat+1)) ^ run*0xbf58476d1ce4e5b9
}

// WarmConns is the cap, else 64 (the rate mode's most): a trace's bursts
// then find their connections open, not dialled on the clock.
func (*Load) WarmConns(k sweep.LevelKey) int {
	if !openloop.Uncapped(k) {
		return k.Concurrency
	}
	return 64
}

// AbortAfter is the open loop's.
func (*Load) AbortAfter(k sweep.LevelKey) int { return openloop.AbortAfter(k) }
