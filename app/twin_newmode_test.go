package app

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/mode/closed"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// rampMode is a mode registered only in this test binary, beside the
// burst mode (mode/toy), to test issue #32's claim that a new mode gets
// prediction and steering without code of its own beyond its
// registration: --ramp N searches a closed loop's concurrency up to N
// (the mode package's parts: closed.NewSearch judged on the mode's own
// levels), in levels named "R=4". Nothing in app/twin.go or mode/steer
// names it.
type rampMode struct{}

const rampName = "ramp"

func init() { sweep.Register(rampMode{}) }

type rampSettings struct{ max int }

func rampOf(l *mode.Line) *rampSettings { return mode.Settings[rampSettings](l, rampName) }

// The engine side.

func (rampMode) Name() string                  { return rampName }
func (rampMode) Rank() int                     { return 45 }
func (rampMode) Open() bool                    { return false }
func (rampMode) Marks() bool                   { return true }
func (rampMode) RunsSessions() bool            { return false }
func (rampMode) Claims(*sweep.Level) bool      { return false }
func (rampMode) Unbounded(sweep.LevelKey) bool { return false }
func (rampMode) Words() sweep.Words {
	return sweep.Words{
		Name:          func(k sweep.LevelKey) string { return fmt.Sprintf("R=%d", k.Concurrency) },
		At:            func(k sweep.LevelKey) string { return fmt.Sprintf("a ramp of %d", k.Concurrency) },
		Unit:          "concurrent users",
		Axis:          "ramp",
		Aggregate:     "all in flight",
		Caption:       "at each ramp",
		ClientLimited: "may have been",
	}
}

// The command side.

func (rampMode) Flags(l *mode.Line) []cli.Flag {
	r := rampOf(l)
	return []cli.Flag{&cli.IntFlag{Name: "ramp", Destination: &r.max, Usage: "test only: search a closed loop's concurrency up to N"}}
}
func (rampMode) Category() string               { return "ramp" }
func (rampMode) HelpOrder() int                 { return 5 }
func (rampMode) FlagsBefore() map[string]string { return nil }
func (rampMode) Parse(*mode.Line) error         { return nil }
func (rampMode) Check(l *mode.Line) error {
	if n := rampOf(l).max; n < 0 || n > 64 {
		return mode.Usagef("invalid --ramp %d: want 1 to 64", n)
	}
	return nil
}
func (rampMode) Given(l *mode.Line) bool              { return rampOf(l).max > 0 }
func (rampMode) Chosen(l *mode.Line) bool             { return rampOf(l).max > 0 }
func (rampMode) Text(l *mode.Line) string             { return "ramping up to " + strconv.Itoa(rampOf(l).max) }
func (rampMode) Searched(*mode.Line) bool             { return true }
func (rampMode) Levels(*mode.Line) int                { return 0 }
func (rampMode) Conns(l *mode.Line) int               { return rampOf(l).max }
func (rampMode) Streams(l *mode.Line) int             { return rampOf(l).max }
func (rampMode) Record(*mode.Line, *report.RunConfig) {}
func (rampMode) Summary(*mode.Line, *report.Summary)  {}
func (rampMode) Estimate(*mode.Line) mode.Estimate    { return rampEstimate{} }
func (rampMode) Start(_ context.Context, s mode.Start, cfg *sweep.Config) mode.Run {
	search := closed.NewSearch(rampOf(s.Line).max, 1, mode.JudgeLevels(s.Stats, s.Line.SLO, rampName))
	ld := closed.Load{Name: rampName, Chooser: search}
	cfg.Load = ld
	return ld.Run()
}

// rampEstimate knows nothing ahead: the levels are searched.
type rampEstimate struct{}

func (rampEstimate) UpFront(mode.Timing) string { return "ramping" }
func (rampEstimate) Runs(mode.Timing) int       { return 0 }
func (rampEstimate) TimeLeft(mode.Timing, int, time.Duration) time.Duration {
	return 0
}
func (rampEstimate) PerRequest(_ mode.Timing, _ sweep.LevelKey, elapsed time.Duration) (time.Duration, bool) {
	return elapsed, true
}
func (rampEstimate) Alone(_ mode.Timing, _ sweep.LevelKey, at time.Duration) time.Duration { return at }

// --ramp N --twin: the model fits and steers the search of a mode that
// exists only in its registration, its answer rests on a full-length
// level, and the closing sentence names the mode and the load-seconds
// against the twin's full search. A miss is retried, and not judged when
// the machine starved every try.
func TestTwinSteersAModeRegisteredInATest(t *testing.T) {
	t.Parallel()
	var misses []string
	starved := true
	for attempt := range 2 {
		r := sweepSteered(t, "--ramp", "32", "--slo-ttft-p95", "150ms", "--input-tokens", "300:150", "--max-tokens", "16")
		c := r.sum.Recommendation.RecommendedConcurrency
		if r.sum.Twin.Search != rampName {
			t.Fatalf("the steered search is %q's, want %q's", r.sum.Twin.Search, rampName)
		}
		if c == nil {
			misses = append(misses, "no level passed; "+r.line())
		} else {
			m := r.misses(fmt.Sprintf("R=%d", *c), func(l report.LevelJSON) bool { return l.Concurrency == *c }, sweep.AutoRequests(*c))
			if len(m) == 0 {
				t.Logf("attempt %d: R=%d; %s", attempt+1, *c, r.line())
				return
			}
			misses = append(misses, fmt.Sprintf("%q; %s", m, r.line()))
		}
		starved = starved && r.starved
	}
	if starved {
		t.Logf("not judged: the machine starved every attempt: %q", misses)
		return
	}
	t.Errorf("every attempt missed: %q", misses)
}
