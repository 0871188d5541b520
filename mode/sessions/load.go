package sessions

import (
	"github.com/toksweep/toksweep/mode/closed"
	"github.com/toksweep/toksweep/sweep"
)

// Load is a sessions sweep (sweep.Config.Load): the closed loop's levels
// (Levels or Chooser; its Name is the sessions'), each worker of which
// runs the conversations of Sessions, one turn per ticket.
type Load struct {
	closed.Load
	Sessions *sweep.Sessions
}

var (
	_ sweep.Load     = Load{}
	_ sweep.Prompter = Load{}
)

// Arrivals is the loop of multi-turn sessions of C workers.
func (l Load) Arrivals(_ *sweep.Config, k sweep.LevelKey, _, _ int) (sweep.Arrivals, error) {
	return sweep.SessionLoop(k.Concurrency, l.Sessions), nil
}

// OwnPrompts is true: the sessions make every turn's prompt.
func (Load) OwnPrompts() bool { return true }
