package app

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/rundir"
	"github.com/toksweep/toksweep/sweep"
)

// legacy is a legacyMode as a commandMode over the options o of one
// command line (its hooks read o, not the mode.Line).
type legacy struct {
	sweep.Mode
	m *legacyMode
	o *options
}

var _ commandMode = legacy{}

func (l legacy) Flags(*mode.Line) []cli.Flag {
	if l.m.flags == nil {
		return nil
	}
	return l.m.flags(l.o)
}
func (l legacy) HelpOrder() int                 { return l.m.helpOrder }
func (l legacy) FlagsBefore() map[string]string { return l.m.before }
func (l legacy) Parse(*mode.Line) error         { return l.pass(l.m.parse) }
func (l legacy) Check(*mode.Line) error         { return l.pass(l.m.check) }
func (l legacy) Given(*mode.Line) bool          { return false }
func (l legacy) Chosen(*mode.Line) bool         { return l.m.chosen != nil && l.m.chosen(l.o) }
func (l legacy) Text(*mode.Line) string {
	if l.m.text == nil {
		return "in mode " + l.m.name
	}
	return l.m.text(l.o)
}
func (l legacy) Searched(*mode.Line) bool { return l.m.searched != nil && l.m.searched(l.o) }
func (l legacy) Levels(*mode.Line) int    { return l.int(l.m.levels) }
func (l legacy) Conns(*mode.Line) int     { return l.int(l.m.conns) }
func (l legacy) Streams(*mode.Line) int   { return l.int(l.m.streams) }
func (l legacy) Record(_ *mode.Line, rc *report.RunConfig) {
	if l.m.record != nil {
		l.m.record(l.o, rc)
	}
}
func (l legacy) Summary(_ *mode.Line, sum *report.Summary) {
	if l.m.summary != nil {
		l.m.summary(l.o, sum)
	}
}
func (l legacy) Estimate(*mode.Line) mode.Estimate {
	if l.m.estimate == nil {
		return nil
	}
	return l.m.estimate(l.o)
}
func (l legacy) Start(ctx context.Context, s mode.Start, cfg *sweep.Config) mode.Run {
	r := l.m.start(ctx, modeStart{o: l.o, cl: s.Client, stderr: s.Stderr, stats: s.Stats}, cfg)
	return mode.Run{Search: r.search, Note: r.note, Preface: r.preface, Closing: r.closing}
}

func (l legacy) pass(f func(*options) error) error {
	if f == nil {
		return nil
	}
	return f(l.o)
}

func (l legacy) int(f func(*options) int) int {
	if f == nil {
		return 0
	}
	return f(l.o)
}

// legacyShard is a legacy mode that can be sharded.
type legacyShard struct{ legacy }

var _ sharder = legacyShard{}

func (l legacyShard) ShardCheck(*mode.Line, sweep.Part) error {
	if l.m.shard.check == nil {
		return nil
	}
	return l.m.shard.check(l.o)
}
func (l legacyShard) ShardLevels(_ *mode.Line, info *rundir.ShardInfo) []int {
	return l.m.shard.levels(l.o, info)
}
func (l legacyShard) ShardSplit(p sweep.Part, cfg *sweep.Config) {
	if l.m.shard.split != nil {
		l.m.shard.split(p, cfg)
	}
}

// adapt is the legacy mode m as a commandMode over o, a sharder where m
// has its hooks.
func adapt(em sweep.Mode, m *legacyMode, o *options) commandMode {
	l := legacy{em, m, o}
	if m.shard != nil {
		return legacyShard{l}
	}
	return l
}
