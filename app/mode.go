package app

import (
	"cmp"
	"context"
	"io"
	"maps"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/rundir"
	"github.com/toksweep/toksweep/sweep"
	"github.com/toksweep/toksweep/workload"
)

// mode is a load mode's command-line side, registered (registerMode) from
// the mode's own files beside its sweep.Mode, as k6 registers its
// executors: its flags, their checks, how a checked command line becomes
// its sweep.Config, its search, its words and its time estimate. The
// sweep command, its checks and the estimates loop over the registry and
// never test a mode's settings themselves. Every func may be nil: the
// mode has nothing to say there.
type mode struct {
	name string // its sweep.Mode's Name
	// rank orders the modes: chosen asks them in rank order which one the
	// command line chose (the first that says yes runs), and check runs
	// their checks in it.
	rank int
	// helpOrder places the mode's flags among the other modes' in --help.
	helpOrder int

	// flags are the mode's flags, bound into o. A flag named in before is
	// shown in --help just before that common flag, the others in the
	// modes' block.
	flags  func(o *options) []cli.Flag
	before map[string]string
	// parse is the first pass over the mode's flags, before the prompt
	// set is read: its level list, which the bounds and --shard check, and
	// what the prompt set needs checked first (the sessions' turns).
	parse func(o *options) error
	// prompts adds the mode's settings to the prompt set's options (the
	// sessions mode's turns), after parse; every mode's runs.
	prompts func(o *options, wo *workload.Options)
	// check is the second pass, once the workload is known: what the
	// flags require of each other and what conflicts. Every mode's checks
	// run, chosen or not (a mode's flags without the mode are an error).
	check func(o *options) error
	// chosen reports whether the checked command line is a sweep of this
	// mode.
	chosen func(o *options) bool

	// text names the levels in the start-up line, after "sweeping URL
	// (model M)": "at levels 1,2,4", "at levels auto (up to 256)", "at
	// rates 8,16 req/s (poisson)", "with trace F at speeds 1× (2 req/s)".
	text func(o *options) string
	// searched reports whether an auto search chooses the levels as the
	// sweep goes (so no level count is known before).
	searched func(o *options) bool
	// levels is how many levels the sweep plans (0 when searched).
	levels func(o *options) int
	// conns is the client's connection pool size (0: defaultConns);
	// streams the most streams it holds open, for the descriptor check
	// (0: not known before the sweep).
	conns, streams func(o *options) int
	// record puts the mode's settings in summary.json's config, and
	// summary its part of summary.json beside the config.
	record  func(o *options, rc *report.RunConfig)
	summary func(o *options, sum *report.Summary)
	// estimate is the mode's time estimates (eta.go).
	estimate func(o *options) estimate
	// shard is how a sharded run splits the mode's levels (shard.go); nil:
	// the mode cannot be split, and --shard is refused naming it.
	shard *modeShard

	// start makes cfg a sweep of this mode (its Mode and ModeSpec, or its
	// levels; its search, judged on the levels' stats as they end), after
	// whatever it must ask the server first, and says what the mode adds
	// to the run's output.
	start func(ctx context.Context, s modeStart, cfg *sweep.Config) modeRun
}

// modeShard is a mode's part in a sharded run (shard.go): every shard runs
// every level at the shared instants, each with its part of the level's
// count (sweep.Part.Workers: the workers, or an open loop's cap) and its
// part of the prompts.
type modeShard struct {
	// check refuses, once the mode is chosen, what the mode cannot split
	// exactly (a search, a level below the shards).
	check func(o *options) error
	// levels fills shard.json's levels (or rates) and returns, for each
	// level, the count whose part each shard takes.
	levels func(o *options, info *rundir.ShardInfo) []int
	// split gives cfg this shard's part p of the mode's arrivals (nil: the
	// part of the count is all there is to split).
	split func(p sweep.Part, cfg *sweep.Config)
}

// modeStart is what a mode's start may use.
type modeStart struct {
	o      *options
	cl     *client.Client
	stderr io.Writer
	stats  *[]report.LevelStats // the finished levels, for a search's judge
}

// modeRun is what a mode adds to one sweep's output; nil funcs add nothing.
type modeRun struct {
	// search is the mode's auto search, whose sentence follows the answer.
	search interface{ Sentence() string }
	// note is a line under a level's status line.
	note func(l sweep.Level, s report.LevelStats) string
	// preface is written on stdout before the tables; closing is a line
	// after the answer (and the search's sentence).
	preface func(w io.Writer) error
	closing func(stats []report.LevelStats) string
}

// modeSettings is the settings of the mode of that name in o, made on
// first use: a mode added later keeps its flags' values and what its
// checks made of them here, with no field in options.
func modeSettings[T any](o *options, name string) *T {
	if s, ok := o.modes[name].(*T); ok {
		return s
	}
	if o.modes == nil {
		o.modes = map[string]any{}
	}
	s := new(T)
	o.modes[name] = s
	return s
}

// defaultConns is the connection pool size of a mode that names none (the
// pool only bounds idle connections: an uncapped open loop opens as many
// as it needs).
const defaultConns = 64

var modes []*mode

// registerMode adds m to the registry; each mode's file calls it from init.
func registerMode(m *mode) {
	if slices.ContainsFunc(modes, func(o *mode) bool { return o.name == m.name }) {
		panic("app: mode " + m.name + " registered twice")
	}
	modes = append(modes, m)
	slices.SortStableFunc(modes, func(a, b *mode) int { return cmp.Compare(a.rank, b.rank) })
}

// modeFlags are every mode's flags: the block shown among the sweep
// flags (in helpOrder), and those placed before a common flag.
func modeFlags(o *options) (block []cli.Flag, before map[string][]cli.Flag) {
	before = map[string][]cli.Flag{}
	byHelp := slices.SortedStableFunc(slices.Values(modes), func(a, b *mode) int { return cmp.Compare(a.helpOrder, b.helpOrder) })
	for _, m := range byHelp {
		if m.flags == nil {
			continue
		}
		for _, f := range m.flags(o) {
			if at, ok := m.before[f.Names()[0]]; ok {
				before[at] = append(before[at], f)
				continue
			}
			block = append(block, f)
		}
	}
	return block, before
}

// placeFlags puts each flag of before just ahead of the flag it names; a
// flag whose place is gone (renamed) ends the list rather than vanish.
func placeFlags(flags []cli.Flag, before map[string][]cli.Flag) []cli.Flag {
	out := make([]cli.Flag, 0, len(flags))
	for _, f := range flags {
		name := f.Names()[0]
		out = append(out, before[name]...)
		delete(before, name)
		out = append(out, f)
	}
	for _, at := range slices.Sorted(maps.Keys(before)) {
		out = append(out, before[at]...)
	}
	return out
}

// parseModes and checkModes run every mode's first and second pass.
func (o *options) parseModes() error {
	return o.eachMode(func(m *mode) func(*options) error { return m.parse })
}
func (o *options) checkModes() error {
	return o.eachMode(func(m *mode) func(*options) error { return m.check })
}

func (o *options) eachMode(pass func(*mode) func(*options) error) error {
	for _, m := range modes {
		if f := pass(m); f != nil {
			if err := f(o); err != nil {
				return err
			}
		}
	}
	return nil
}

// mode is the mode the checked command line chose: the first in rank
// order whose chosen says so.
func (o *options) mode() *mode {
	for _, m := range modes {
		if m.chosen != nil && m.chosen(o) {
			return m
		}
	}
	panic("app: no mode takes this command line (the closed loop takes every one)")
}

// modeInt is an int hook of the chosen mode, or def when it has none.
func (o *options) modeInt(hook func(*mode) func(*options) int, def int) int {
	if f := hook(o.mode()); f != nil {
		return f(o)
	}
	return def
}

// plannedRuns is the number of level runs the sweep plans: 0 when a search
// chooses them.
func (o *options) plannedRuns() int {
	if o.searched() {
		return 0
	}
	return o.modeInt(func(m *mode) func(*options) int { return m.levels }, 0) * max(o.Repeat, 1)
}

// searched reports whether an auto search chooses the levels.
func (o *options) searched() bool {
	m := o.mode()
	return m.searched != nil && m.searched(o)
}

// maxConns is the client's connection pool size.
func (o *options) maxConns() int {
	return cmp.Or(o.modeInt(func(m *mode) func(*options) int { return m.conns }, 0), defaultConns)
}

// levelsText describes the levels for the start-up line.
func (o *options) levelsText() string {
	m := o.mode()
	if m.text != nil {
		return m.text(o)
	}
	return "in mode " + m.name
}
