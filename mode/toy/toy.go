// Package toy is the burst mode, a mode that exists for one test
// (app/mode_toy_test.go, which links it): it proves that a mode added in
// its own package, one type registered once, runs through the sweep
// command, its checks, estimate, output and saved files without a line
// changed in any consumer. A level "burst=N" sends N requests at once,
// one each, and ends when they have. Nothing else imports it.
package toy

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// Name is the burst mode's name.
const Name = "burst"

// Mode is the burst mode, both sides.
type Mode struct{}

func init() { sweep.Register(Mode{}) }

// settings are what --burst chose.
type settings struct {
	raw   string
	sizes []int
}

func of(l *mode.Line) *settings { return mode.Settings[settings](l, Name) }

// The engine side.

func (Mode) Name() string                  { return Name }
func (Mode) Rank() int                     { return 30 }
func (Mode) Open() bool                    { return false }
func (Mode) Marks() bool                   { return true } // its records name it
func (Mode) RunsSessions() bool            { return false }
func (Mode) Claims(*sweep.Level) bool      { return false }
func (Mode) Unbounded(sweep.LevelKey) bool { return false }
func (Mode) Words() sweep.Words {
	return sweep.Words{
		Name:          func(k sweep.LevelKey) string { return fmt.Sprintf("burst=%d", k.Concurrency) },
		At:            func(k sweep.LevelKey) string { return fmt.Sprintf("a burst of %d", k.Concurrency) },
		Unit:          "requests sent at once",
		Axis:          "burst size",
		Aggregate:     "over the burst",
		Caption:       "for each burst of requests sent at once",
		ClientLimited: "may have been",
	}
}

// load is a sweep of bursts.
type load []int

func (load) Mode() string { return Name }
func (l load) Keys() func() (sweep.LevelKey, bool) {
	return func() (sweep.LevelKey, bool) {
		if len(l) == 0 {
			return sweep.LevelKey{}, false
		}
		n := l[0]
		l = l[1:]
		return sweep.LevelKey{Mode: Name, Concurrency: n}, true
	}
}
func (load) Measured(_ *sweep.Config, k sweep.LevelKey) int { return k.Concurrency }
func (load) Arrivals(_ *sweep.Config, k sweep.LevelKey, _, _ int) (sweep.Arrivals, error) {
	return sweep.ArrivalsFunc(func(ctx context.Context, s sweep.Sender) {
		var wg sync.WaitGroup
		for w := range k.Concurrency {
			t, ok := s.Next()
			if !ok {
				break
			}
			wg.Go(func() { s.Send(ctx, t, w, 0) })
		}
		wg.Wait()
	}), nil
}
func (load) WarmConns(k sweep.LevelKey) int  { return k.Concurrency }
func (load) AbortAfter(k sweep.LevelKey) int { return k.Concurrency }

// The command side.

func (Mode) Flags(l *mode.Line) []cli.Flag {
	b := of(l)
	return []cli.Flag{&cli.StringFlag{Name: "burst", Destination: &b.raw, Usage: "test only: comma-separated burst sizes, one level each"}}
}
func (Mode) Category() string               { return "burst" }
func (Mode) HelpOrder() int                 { return 4 }
func (Mode) FlagsBefore() map[string]string { return nil }
func (Mode) Parse(*mode.Line) error         { return nil }
func (Mode) Check(l *mode.Line) error {
	b := of(l)
	if b.raw == "" {
		return nil
	}
	for _, f := range strings.Split(b.raw, ",") {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > 64 {
			return mode.Usagef("invalid --burst %q: want sizes from 1 to 64", b.raw)
		}
		b.sizes = append(b.sizes, n)
	}
	return nil
}
func (Mode) Given(l *mode.Line) bool              { return of(l).raw != "" }
func (Mode) Chosen(l *mode.Line) bool             { return len(of(l).sizes) > 0 }
func (Mode) Text(l *mode.Line) string             { return "in bursts of " + mode.JoinInts(of(l).sizes) }
func (Mode) Searched(*mode.Line) bool             { return false }
func (Mode) Levels(l *mode.Line) int              { return len(of(l).sizes) }
func (Mode) Conns(*mode.Line) int                 { return 64 }
func (Mode) Streams(*mode.Line) int               { return 0 }
func (Mode) Record(*mode.Line, *report.RunConfig) {}
func (Mode) Summary(*mode.Line, *report.Summary)  {}
func (Mode) Estimate(l *mode.Line) mode.Estimate  { return estimate(of(l).sizes) }
func (Mode) Start(_ context.Context, s mode.Start, cfg *sweep.Config) mode.Run {
	cfg.Load = load(of(s.Line).sizes)
	return mode.Run{
		Note: func(l sweep.Level, _ report.LevelStats) string {
			return fmt.Sprintf("\n  burst of %d sent", l.Concurrency)
		},
		Closing: func(stats []report.LevelStats) string { return fmt.Sprintf("Bursts: %d levels.", len(stats)) },
	}
}

// estimate: a burst lasts one request.
type estimate []int

func (b estimate) UpFront(mode.Timing) string {
	return fmt.Sprintf("%d bursts of one request each", len(b))
}
func (b estimate) Runs(p mode.Timing) int { return len(b) * max(p.Repeat, 1) }
func (b estimate) TimeLeft(p mode.Timing, done int, per time.Duration) time.Duration {
	return time.Duration(max(b.Runs(p)-done, 0)) * per
}
func (estimate) PerRequest(_ mode.Timing, _ sweep.LevelKey, elapsed time.Duration) (time.Duration, bool) {
	return elapsed, true
}
func (estimate) Alone(_ mode.Timing, _ sweep.LevelKey, at time.Duration) time.Duration { return at }
