package mode

import (
	"fmt"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
)

// Line is the checked sweep command line as the modes read it: the
// settings every mode needs, the warnings the checks add, and each mode's
// own settings (Settings), so that a mode adds no field anywhere else.
type Line struct {
	Requests int           // --requests: measured requests per level; 0: the mode's auto count
	Duration time.Duration // --duration: bound on each level's measured phase; 0: none
	Warmup   int           // --warmup: warm-up requests per level
	Repeat   int           // --repeat: runs of each level; 0 means 1
	SLO      report.SLO    // --slo-*: what an adaptive search searches against
	// Tiers is --slo-tier: every level is judged against each, and an
	// adaptive search finds each one's boundary (TierSearch).
	Tiers   []report.Tier
	Seed    int64      // --seed: of the prompts' order and text, and of an open loop's arrivals
	SeedSet bool       // --seed was given
	API     client.API // --api: the endpoint the requests go to
	// Cap is --max-concurrency, an open loop's cap on requests in flight
	// (0: none); CapSet says it was given. The registry refuses it for a
	// mode that is not open (app).
	Cap    int
	CapSet bool
	// LevelDuration is a sharded run's --level-duration (0: not sharded),
	// which bounds each shard's levels.
	LevelDuration time.Duration
	Warnings      []string // non-fatal remarks about the flags, printed before the run

	settings map[string]any
}

// Settings is the settings of the mode of that name in l, made on first
// use: its flags' values and what its checks made of them.
func Settings[T any](l *Line, name string) *T {
	if s, ok := l.settings[name].(*T); ok {
		return s
	}
	if l.settings == nil {
		l.settings = map[string]any{}
	}
	s := new(T)
	l.settings[name] = s
	return s
}

// UsageError is a mistake in the command line. It is reported in one line
// and exits with status 2 (app.UsageError is this type).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef is a UsageError of that message.
func Usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}
