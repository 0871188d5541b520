package app

import (
	"cmp"
	"context"
	"io"
	"maps"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/rundir"
	"github.com/toksweep/toksweep/sweep"
	"github.com/toksweep/toksweep/workload"
)

// commandMode is a load mode's command-line side: its flags, their checks,
// how a checked command line becomes its sweep.Load, its search, its words
// and its time estimate. Each mode is one type in its package (mode/NAME)
// that is both this and its sweep.Mode, registered once
// (sweep.Register); app asks the registered modes for this side. The
// sweep command, its checks and the estimates loop over the modes and
// never test a mode's settings themselves. A mode keeps its settings in
// the mode.Line (mode.Settings).
type commandMode interface {
	sweep.Mode
	// Flags are the mode's flags, bound into its settings in l; HelpOrder
	// places them among the other modes' in --help, and a flag named in
	// FlagsBefore is shown just before that common flag instead.
	Flags(l *mode.Line) []cli.Flag
	HelpOrder() int
	FlagsBefore() map[string]string
	// Parse is the first pass over the mode's flags, before the prompt
	// set is read: its level list, which the bounds and --shard check.
	Parse(l *mode.Line) error
	// Check is the second pass, once the workload is known: what the
	// flags require of each other. Every mode's checks run, chosen or not.
	Check(l *mode.Line) error
	// Given reports whether any of the mode's own flags was given.
	Given(l *mode.Line) bool
	// Chosen reports whether the checked command line is a sweep of this
	// mode.
	Chosen(l *mode.Line) bool
	// Text names the levels in the start-up line, after "sweeping URL
	// (model M)": "at levels 1,2,4", "at rates 8,16 req/s (poisson)".
	Text(l *mode.Line) string
	// Searched reports whether an auto search chooses the levels as the
	// sweep goes (so no level count is known before); Levels is how many
	// levels the sweep plans (0 when searched).
	Searched(l *mode.Line) bool
	Levels(l *mode.Line) int
	// Conns is the client's connection pool size (0: defaultConns);
	// Streams the most streams it holds open, for the descriptor check
	// (0: not known before the sweep).
	Conns(l *mode.Line) int
	Streams(l *mode.Line) int
	// Record puts the mode's settings in summary.json's config, and
	// Summary its part of summary.json beside the config.
	Record(l *mode.Line, rc *report.RunConfig)
	Summary(l *mode.Line, sum *report.Summary)
	// Estimate is the mode's time estimates.
	Estimate(l *mode.Line) mode.Estimate
	// Start makes cfg a sweep of this mode (its Load: its levels, or its
	// search judged on the levels' stats as they end), after whatever it
	// must ask the server first, and says what it adds to the output.
	Start(ctx context.Context, s mode.Start, cfg *sweep.Config) mode.Run
}

// promptShaper is a mode that shapes the prompt set (the sessions mode's
// turns); every such mode's hooks run, chosen or not.
type promptShaper interface {
	// Prompts checks the mode's flags against the prompt source wo names
	// and puts them into wo, after Parse and before the set is read.
	Prompts(l *mode.Line, wo *workload.Options) error
	// Loaded takes the set read, whose requests go over api, and returns
	// what it adds to the set's description ("": nothing).
	Loaded(l *mode.Line, set *workload.Set, api client.API) string
}

// sharder is a mode that a sharded run can split (shard.go): every shard
// runs every level at the shared instants, each with its part of the
// level's count (sweep.Part.Workers: the workers, or an open loop's cap)
// and its part of the prompts. A mode that is not one is refused --shard.
type sharder interface {
	// ShardCheck refuses, once the mode is chosen, what it cannot split
	// exactly (a search, a level below the shards).
	ShardCheck(l *mode.Line, p sweep.Part) error
	// ShardLevels fills shard.json's levels (or rates) and returns, for
	// each level, the count whose part each shard takes.
	ShardLevels(l *mode.Line, info *rundir.ShardInfo) []int
	// ShardSplit gives cfg this shard's part p of the mode's arrivals
	// (nothing: the part of the count is all there is to split).
	ShardSplit(p sweep.Part, cfg *sweep.Config)
}

// legacyMode is a mode whose command side is still app's own hooks over
// the options (its engine side the sweep's own), until it moves to its
// package; legacy adapts it to commandMode.
type legacyMode struct {
	name           string
	rank           int
	helpOrder      int
	flags          func(o *options) []cli.Flag
	before         map[string]string
	parse          func(o *options) error
	check          func(o *options) error
	chosen         func(o *options) bool
	text           func(o *options) string
	searched       func(o *options) bool
	levels         func(o *options) int
	conns, streams func(o *options) int
	record         func(o *options, rc *report.RunConfig)
	summary        func(o *options, sum *report.Summary)
	estimate       func(o *options) mode.Estimate
	shard          *modeShard
	start          func(ctx context.Context, s modeStart, cfg *sweep.Config) modeRun
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

// defaultConns is the connection pool size of a mode that names none (the
// pool only bounds idle connections: an uncapped open loop opens as many
// as it needs).
const defaultConns = 64

var legacyModes []*legacyMode

// registerMode adds a legacy mode; its engine side is registered in sweep.
func registerMode(m *legacyMode) {
	if slices.ContainsFunc(legacyModes, func(o *legacyMode) bool { return o.name == m.name }) {
		panic("app: mode " + m.name + " registered twice")
	}
	legacyModes = append(legacyModes, m)
}

// modes are the registered modes' command sides, in the order the
// command line asks them which one it chose (their rank; a legacy mode's
// own rank).
func modes(o *options) []commandMode {
	type ranked struct {
		m    commandMode
		rank int
	}
	var rs []ranked
	for _, m := range sweep.Modes() {
		if c, ok := m.(commandMode); ok {
			rs = append(rs, ranked{c, c.Rank()})
		}
	}
	for _, m := range legacyModes {
		if em := sweep.ModeNamed(m.name); em != nil {
			rs = append(rs, ranked{adapt(em, m, o), m.rank})
		}
	}
	slices.SortStableFunc(rs, func(a, b ranked) int { return cmp.Compare(a.rank, b.rank) })
	ms := make([]commandMode, len(rs))
	for i, r := range rs {
		ms[i] = r.m
	}
	return ms
}

// modeFlags are every mode's flags: the block shown among the sweep
// flags (in HelpOrder), and those placed before a common flag.
func modeFlags(o *options) (block []cli.Flag, before map[string][]cli.Flag) {
	before = map[string][]cli.Flag{}
	byHelp := slices.SortedStableFunc(slices.Values(modes(o)), func(a, b commandMode) int { return cmp.Compare(a.HelpOrder(), b.HelpOrder()) })
	for _, m := range byHelp {
		at := m.FlagsBefore()
		for _, f := range m.Flags(&o.Line) {
			if name, ok := at[f.Names()[0]]; ok {
				before[name] = append(before[name], f)
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
	return o.eachMode(commandMode.Parse)
}
func (o *options) checkModes() error {
	return o.eachMode(commandMode.Check)
}

func (o *options) eachMode(pass func(commandMode, *mode.Line) error) error {
	for _, m := range modes(o) {
		if err := pass(m, &o.Line); err != nil {
			return err
		}
	}
	return nil
}

// mode is the mode the checked command line chose: the first in rank
// order whose Chosen says so.
func (o *options) mode() commandMode {
	for _, m := range modes(o) {
		if m.Chosen(&o.Line) {
			return m
		}
	}
	panic("app: no mode takes this command line (the closed loop takes every one)")
}

// plannedRuns is the number of level runs the sweep plans: 0 when a search
// chooses them.
func (o *options) plannedRuns() int {
	if o.searched() {
		return 0
	}
	return o.mode().Levels(&o.Line) * max(o.Repeat, 1)
}

// searched reports whether an auto search chooses the levels.
func (o *options) searched() bool { return o.mode().Searched(&o.Line) }

// maxConns is the client's connection pool size.
func (o *options) maxConns() int { return cmp.Or(o.mode().Conns(&o.Line), defaultConns) }

// levelsText describes the levels for the start-up line.
func (o *options) levelsText() string { return o.mode().Text(&o.Line) }
