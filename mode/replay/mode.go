package replay

import (
	"fmt"
	"strings"

	"github.com/toksweep/toksweep/mode/openloop"
	"github.com/toksweep/toksweep/sweep"
)

// Name is the replay mode's name, sweep.ReplayMode.
const Name = sweep.ReplayMode

// Mode is the trace replay, registered in init.
type Mode struct{}

func init() { sweep.Register(Mode{}) }

var _ sweep.Mode = Mode{}

// Name is sweep.ReplayMode.
func (Mode) Name() string { return Name }

// Rank is 20: after the rate mode, before the closed loops.
func (Mode) Rank() int { return 20 }

// Open is true: arrivals follow the trace, not the replies.
func (Mode) Open() bool { return true }

// Marks is true: its records name the mode, so that a saved replay level
// is not taken for a rate level (both have a "rate").
func (Mode) Marks() bool { return true }

// RunsSessions is false: a trace's conversations are requests to plan.
func (Mode) RunsSessions() bool { return false }

// Claims a level whose first record names the mode.
func (Mode) Claims(l *sweep.Level) bool {
	for r := range l.All() {
		return r.Mode == Name
	}
	return false
}

// Unbounded is a level without a cap.
func (Mode) Unbounded(k sweep.LevelKey) bool { return openloop.Uncapped(k) }

// Words are the replay's: "speed=2×", "replay speed 2×".
func (Mode) Words() sweep.Words {
	return sweep.Words{
		Name:          func(k sweep.LevelKey) string { return openloop.Named(fmt.Sprintf("speed=%g×", k.Load), k) },
		At:            func(k sweep.LevelKey) string { return fmt.Sprintf("replay speed %g×", k.Load) },
		Unit:          "replay speed",
		Users:         "concurrent users",
		Axis:          "replay speed (× the trace's rate)",
		Aggregate:     "at the replay speed",
		Caption:       "at each replay speed of the trace; where doubling the speed adds little, it has saturated (the knee)",
		ClientLimited: "were", ClientLimitedOne: "was",
		Load: load,
		// The level line's name says the speed: only the rate.
		Offered: func(_ sweep.LevelKey, offered float64) string {
			if !(offered > 0) {
				return ""
			}
			return fmt.Sprintf("offered %.3g req/s", offered)
		},
		Level: "replay speed", Levels: "replay speeds",
		Head: "speed×",
	}
}

// load is Words.Load: "speed 2×", then in brackets the offered rate the
// level realised and the note, "speed 2× (offered 24.3 req/s, open loop)".
func load(k sweep.LevelKey, offered float64, note string) string {
	var in []string
	if offered > 0 {
		in = append(in, fmt.Sprintf("offered %.3g req/s", offered))
	}
	if note != "" {
		in = append(in, note)
	}
	if len(in) == 0 {
		return fmt.Sprintf("speed %g×", k.Load)
	}
	return fmt.Sprintf("speed %g× (%s)", k.Load, strings.Join(in, ", "))
}
