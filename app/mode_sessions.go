package app

import (
	"context"

	"github.com/toksweep/toksweep/sweep"
)

// The multi-turn sessions mode (sweep.SessionsMode): a closed loop whose
// workers run conversations, chosen by the prompt set (--turns, or
// --dataset with --multi-turn). Its levels, their words and estimate are
// the closed loop's; its flags are sessionFlags (sessions.go), checked
// before the prompt set they shape is read (sessionChecks) and handed to
// it (sessionPrompts).
func init() {
	m := *closedMode
	m.name, m.rank, m.helpOrder = sweep.SessionsMode, 50, 1
	// No shard split: every shard would open the same conversations.
	m.flags, m.before, m.shard = sessionFlags, nil, nil
	m.parse, m.prompts = (*options).sessionChecks, (*options).sessionPrompts
	m.chosen = func(o *options) bool { return o.Work.Set != nil && o.Work.Set.Sessions != nil }
	m.check = func(o *options) error {
		if m.chosen(o) && o.Flags.RatesSet {
			return usagef("multi-turn sessions (--turns, --multi-turn) run as a closed loop at --levels; they can't be combined with --rates")
		}
		return nil
	}
	m.start = func(ctx context.Context, s modeStart, cfg *sweep.Config) modeRun {
		run := closedStart(sweep.SessionsMode)(ctx, s, cfg)
		cfg.Sessions = s.o.Work.sessions(s.o.API)
		return run
	}
	registerMode(&m)
}
