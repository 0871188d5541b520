package app

import (
	"github.com/toksweep/toksweep/mode/sessions"
)

// sessionsWithRates refuses --rates beside multi-turn sessions, which run
// as a closed loop at --levels (with --rates they were silently dropped).
// It stands in, for this one pair, for the registry's rule that refuses
// the flags of two modes at once (issue #31), which replaces it.
func (o *options) sessionsWithRates() error {
	if o.Flags.RatesSet && (sessions.Mode{}).Chosen(&o.Line) {
		return usagef("multi-turn sessions (--turns, --multi-turn) run as a closed loop at --levels; they can't be combined with --rates")
	}
	return nil
}
