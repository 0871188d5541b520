package app

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strings"

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
	// Category is the flags' category in --help (app/helpcats.go).
	Flags(l *mode.Line) []cli.Flag
	Category() string
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

// defaultConns is the connection pool size of a mode that names none (the
// pool only bounds idle connections: an uncapped open loop opens as many
// as it needs).
const defaultConns = 64

// modes are the registered modes' command sides, in rank order: the
// order the command line asks them which one it chose.
func modes() []commandMode {
	var ms []commandMode
	for _, m := range sweep.Modes() {
		if c, ok := m.(commandMode); ok {
			ms = append(ms, c)
		}
	}
	return ms
}

// modeFlags are every mode's flags: the block shown among the sweep
// flags (in HelpOrder), and those placed before a common flag.
func modeFlags(o *options) (block []cli.Flag, before map[string][]cli.Flag) {
	before = map[string][]cli.Flag{}
	byHelp := slices.SortedStableFunc(slices.Values(modes()), func(a, b commandMode) int { return cmp.Compare(a.HelpOrder(), b.HelpOrder()) })
	for _, m := range byHelp {
		at := m.FlagsBefore()
		fs := categorize(m.Flags(&o.Line), m.Category())
		if o.modeFlagSet == nil {
			o.modeFlagSet = map[string][]cli.Flag{}
		}
		o.modeFlagSet[m.Name()] = fs
		for _, f := range fs {
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

// parseModes and checkModes run every mode's first and second pass. A
// mode's warnings are kept aside (modeWarnings) until the mode is known:
// only the chosen mode's, and those of the mode it extends, are said.
func (o *options) parseModes() error {
	return o.eachMode(commandMode.Parse)
}
func (o *options) checkModes() error {
	if err := o.eachMode(commandMode.Check); err != nil {
		return err
	}
	m := o.mode()
	o.Warnings = append(o.Warnings, o.modeWarnings[m.Name()]...)
	if e, ok := m.(extender); ok {
		o.Warnings = append(o.Warnings, o.modeWarnings[e.Extends()]...)
	}
	o.modeWarnings = nil
	return nil
}

func (o *options) eachMode(pass func(commandMode, *mode.Line) error) error {
	for _, m := range modes() {
		n := len(o.Warnings)
		err := pass(m, &o.Line)
		if said := o.Warnings[n:]; len(said) > 0 {
			if o.modeWarnings == nil {
				o.modeWarnings = map[string][]string{}
			}
			o.modeWarnings[m.Name()] = append(o.modeWarnings[m.Name()], said...)
			o.Warnings = o.Warnings[:n]
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// extender is a mode that runs on another mode's levels (the sessions on
// the closed loop's): that mode's flags and warnings are its too.
type extender interface {
	Extends() string
}

// promptOwner is a mode that sets each request's prompt and lengths
// itself (the trace replay): PromptsFrom names its flag and why when it
// does ("--trace: the trace sets …"; "": not on this command line), and
// the prompt set's flags are refused; Lengths are then its longest prompt
// and output, in tokens, what a fitted model is asked (asked).
type promptOwner interface {
	PromptsFrom(l *mode.Line) string
	Lengths(l *mode.Line) (prompt, output int)
}

// exclusive is the one rule between the modes: the flags of two modes
// are refused together, unless one mode extends the other. It runs before
// any mode's checks.
func (o *options) exclusive() error {
	var given []commandMode
	for _, m := range modes() {
		if m.Given(&o.Line) {
			given = append(given, m)
		}
	}
	for i, a := range given {
		for _, b := range given[i+1:] {
			if !extends(a, b) && !extends(b, a) {
				return usagef("%s and %s are exclusive: they set two load modes (%s and %s), and a sweep runs one", o.givenFlag(a), o.givenFlag(b), a.Name(), b.Name())
			}
		}
	}
	return nil
}

// extends reports whether mode a runs on mode b's levels.
func extends(a, b commandMode) bool {
	e, ok := a.(extender)
	return ok && e.Extends() == b.Name()
}

// givenFlag is the first of m's flags given on the command line:
// "--rates" (its mode's name when the flags were not parsed here).
func (o *options) givenFlag(m commandMode) string {
	for _, f := range o.modeFlagSet[m.Name()] {
		if slices.Contains(o.givenFlags, f.Names()[0]) {
			return "--" + f.Names()[0]
		}
	}
	return "the " + m.Name() + " mode's flags"
}

// openCap refuses --max-concurrency, an open loop's cap, for a mode that
// is not open, and checks its bounds.
func (o *options) openCap() error {
	if !o.CapSet {
		return nil
	}
	if m := o.mode(); !m.Open() {
		var open []string
		for _, m := range modes() {
			if fs := o.modeFlagSet[m.Name()]; m.Open() && len(fs) > 0 {
				open = append(open, "--"+fs[0].Names()[0])
			}
		}
		return usagef("--max-concurrency caps an open loop's requests in flight: give %s too (the %s mode's levels are its concurrency)", strings.Join(open, " or "), m.Name())
	}
	if o.Cap < 1 || o.Cap > mode.MaxLevel {
		return usagef("invalid --max-concurrency %d: want an integer from 1 to %d", o.Cap, mode.MaxLevel)
	}
	return nil
}

// capFlag is --max-concurrency, the open-loop modes' shared cap.
func capFlag(o *options) cli.Flag {
	return &cli.IntFlag{Name: "max-concurrency", DefaultText: "none", Destination: &o.Cap, Action: mode.Given[int](&o.CapSet), Usage: "--rates, --trace: cap on requests in flight; requests over it wait in the client, and the wait counts as latency"}
}

// mode is the mode the checked command line chose: the first in rank
// order whose Chosen says so.
func (o *options) mode() commandMode {
	for _, m := range modes() {
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
