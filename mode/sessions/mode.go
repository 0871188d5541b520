package sessions

import (
	"fmt"

	"github.com/toksweep/toksweep/mode/closed"
	"github.com/toksweep/toksweep/sweep"
)

// Name is the sessions mode's name, sweep.SessionsMode.
const Name = sweep.SessionsMode

// Mode is the multi-turn sessions mode, registered in init.
type Mode struct{}

func init() { sweep.Register(Mode{}) }

var _ sweep.Mode = Mode{}

// Name is sweep.SessionsMode.
func (Mode) Name() string { return Name }

// Rank places the sessions after the open-loop modes, before the closed
// loop, which takes what no other mode does.
func (Mode) Rank() int { return 50 }

// Extends is the closed loop: the sessions run at its levels, so its
// flags and warnings are the sessions' too.
func (Mode) Extends() string { return sweep.ClosedMode }

// Open is false: a worker's next turn waits for the reply.
func (Mode) Open() bool { return false }

// Marks is false: a saved level is recognised by its records' sessions.
func (Mode) Marks() bool { return false }

// RunsSessions is true: plan sizes its levels in sessions too.
func (Mode) RunsSessions() bool { return true }

// Claims a level whose first record belongs to a session.
func (Mode) Claims(l *sweep.Level) bool {
	for r := range l.All() {
		return r.Session > 0
	}
	return false
}

// Unbounded is false: the workers bound the requests in flight.
func (Mode) Unbounded(sweep.LevelKey) bool { return false }

// Words are the sessions': "C=4", "4 concurrent sessions".
func (Mode) Words() sweep.Words {
	return sweep.Words{
		Name:          func(k sweep.LevelKey) string { return fmt.Sprintf("C=%d", k.Concurrency) },
		At:            func(k sweep.LevelKey) string { return fmt.Sprintf("%d concurrent sessions", k.Concurrency) },
		Unit:          "concurrent sessions",
		Users:         "concurrent sessions",
		Axis:          "concurrent sessions",
		Aggregate:     "all sessions running",
		Caption:       "with C sessions running, each one turn at a time; where doubling C adds little, it has saturated (the knee)",
		ClientLimited: "may have been",
		List:          closed.List,
		Head:          "sessions",
		Running:       "concurrent session",
	}
}
