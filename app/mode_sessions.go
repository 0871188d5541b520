package app

import (
	"context"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/mode/closed"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// The multi-turn sessions mode (sweep.SessionsMode): a closed loop whose
// workers run conversations, chosen by the prompt set (--turns, or
// --dataset with --multi-turn). Its levels, their words and estimate are
// the closed loop's; its flags are sessionFlags (sessions.go), checked
// before the prompt set they shape is read (sessionChecks) and handed to
// it (sessionPrompts).
func init() {
	closedOf := func(o *options) *closed.Settings { return closed.Of(&o.Line) }
	m := &legacyMode{
		name: sweep.SessionsMode, rank: 50, helpOrder: 1,
		flags:    sessionFlags,
		parse:    (*options).sessionChecks,
		prompts:  (*options).sessionPrompts,
		chosen:   func(o *options) bool { return o.Work.Set != nil && o.Work.Set.Sessions != nil },
		text:     func(o *options) string { return closedOf(o).Text() },
		searched: func(o *options) bool { return closedOf(o).Auto },
		levels:   func(o *options) int { return len(closedOf(o).Levels) },
		conns:    func(o *options) int { return closedOf(o).Conns() },
		streams:  func(o *options) int { return closedOf(o).Streams() },
		record:   func(o *options, rc *report.RunConfig) { closedOf(o).Record(rc) },
		estimate: func(o *options) mode.Estimate { return closed.Mode{}.Estimate(&o.Line) },
		// No shard split: every shard would open the same conversations.
	}
	m.check = func(o *options) error {
		if m.chosen(o) && o.Flags.RatesSet {
			return usagef("multi-turn sessions (--turns, --multi-turn) run as a closed loop at --levels; they can't be combined with --rates")
		}
		return nil
	}
	m.start = func(_ context.Context, s modeStart, cfg *sweep.Config) modeRun {
		ld := closedOf(s.o).Load(sweep.SessionsMode, mode.Start{Line: &s.o.Line, Stats: s.stats})
		cfg.Levels = ld.Levels
		if ld.Chooser != nil {
			cfg.Plan = ld.Chooser
		}
		cfg.Sessions = s.o.Work.sessions(s.o.API)
		return modeRun{}
	}
	registerMode(m)
}
