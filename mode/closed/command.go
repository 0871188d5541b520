package closed

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/rundir"
	"github.com/toksweep/toksweep/sweep"
)

// The defaults and bounds of --levels and its search.
const (
	DefaultLevels          = "1,2,4,8,16,32,64"
	defaultAutoMax         = 256
	defaultAutoGranularity = 1
	// MaxLevelList bounds the entries of --levels.
	MaxLevelList = 1000
)

// Settings are the closed loop's settings on a command line: --levels as
// given and checked, and the bounds of --levels auto. The sessions mode
// reads them too (its levels are these).
type Settings struct {
	Raw             string // --levels as given
	Set             bool   // --levels was given
	Levels          []int  // checked: ascending, no repeats; nil with Auto
	Auto            bool   // --levels auto: adaptive search instead of Levels
	AutoMax         int
	AutoGranularity int
}

// Of is the closed loop's settings in l.
func Of(l *mode.Line) *Settings { return mode.Settings[Settings](l, sweep.ClosedMode) }

// Flags are --levels and the bounds of --levels auto.
func (Mode) Flags(l *mode.Line) []cli.Flag {
	s := Of(l)
	return []cli.Flag{
		&cli.StringFlag{Name: "levels", Value: DefaultLevels, Destination: &s.Raw, Action: mode.Given[string](&s.Set), Usage: "comma-separated concurrency levels, run in ascending order, or auto (adaptive search; see --slo-*)"},
		&cli.IntFlag{Name: "auto-max", Value: defaultAutoMax, Destination: &s.AutoMax, Usage: "--levels auto: highest concurrency to try"},
		&cli.IntFlag{Name: "auto-granularity", Value: defaultAutoGranularity, Destination: &s.AutoGranularity, Usage: "--levels auto: stop bisecting when the pass/fail levels are this close"},
	}
}

// Category is "load shape", the flags' category in --help.
func (Mode) Category() string { return "load shape" }

// HelpOrder is 0: the closed loop's flags stand first.
func (Mode) HelpOrder() int { return 0 }

// FlagsBefore puts --levels with the per-level counts in --help, the
// search's bounds after the SLO they search against.
func (Mode) FlagsBefore() map[string]string {
	return map[string]string{"levels": "requests", "auto-max": "reading-speed", "auto-granularity": "reading-speed"}
}

// Given reports whether --levels was given.
func (Mode) Given(l *mode.Line) bool { return Of(l).Set }

// Parse checks the bounds of the adaptive search and parses --levels, at
// most MaxLevelList of them.
func (Mode) Parse(l *mode.Line) error {
	s := Of(l)
	switch {
	case s.AutoMax < 1 || s.AutoMax > mode.MaxLevel:
		return mode.Usagef("invalid --auto-max %d: want an integer from 1 to %d", s.AutoMax, mode.MaxLevel)
	case s.AutoGranularity < 1:
		return mode.Usagef("invalid --auto-granularity %d: want an integer ≥ 1", s.AutoGranularity)
	}
	if err := s.parse(l); err != nil {
		return err
	}
	if len(s.Levels) > MaxLevelList {
		return mode.Usagef("invalid --levels: %d levels, at most %d, toksweep's bound", len(s.Levels), MaxLevelList)
	}
	return nil
}

// Check checks nothing once the workload is known.
func (Mode) Check(*mode.Line) error { return nil }

// Chosen is true: the closed loop takes every command line no other mode takes.
func (Mode) Chosen(*mode.Line) bool { return true }

// Text names the levels in the start-up line: "at levels 1,2,4", "at
// levels auto (up to 256)".
func (Mode) Text(l *mode.Line) string { return Of(l).Text() }

// Text is the levels in the start-up line.
func (s *Settings) Text() string {
	if s.Auto {
		return fmt.Sprintf("at levels auto (up to %d)", s.AutoMax)
	}
	return "at levels " + mode.JoinInts(s.Levels)
}

// Searched reports whether --levels auto chooses the levels.
func (Mode) Searched(l *mode.Line) bool { return Of(l).Auto }

// Levels is how many levels the sweep plans.
func (Mode) Levels(l *mode.Line) int { return len(Of(l).Levels) }

// Conns is the highest level: one connection per worker.
func (Mode) Conns(l *mode.Line) int { return Of(l).Conns() }

// Conns is the connection pool the levels need (0: not known).
func (s *Settings) Conns() int {
	if len(s.Levels) == 0 {
		return 0
	}
	return s.Levels[len(s.Levels)-1]
}

// Streams is the most streams a level holds open.
func (Mode) Streams(l *mode.Line) int { return Of(l).Streams() }

// Streams is the most streams the levels hold open (the search's bound).
func (s *Settings) Streams() int {
	if s.Auto {
		return s.AutoMax
	}
	if len(s.Levels) == 0 {
		return 0
	}
	return slices.Max(s.Levels)
}

// Record puts the levels in summary.json's config.
func (Mode) Record(l *mode.Line, rc *report.RunConfig) { Of(l).Record(rc) }

// Record puts the levels in summary.json's config.
func (s *Settings) Record(rc *report.RunConfig) {
	rc.Levels = s.Levels
	if s.Auto {
		rc.LevelsAuto, rc.AutoMax = true, s.AutoMax
	}
}

// Summary adds nothing beside the config.
func (Mode) Summary(*mode.Line, *report.Summary) {}

// Estimate is the closed loop's time estimate.
func (Mode) Estimate(l *mode.Line) mode.Estimate {
	if s := Of(l); !s.Auto {
		return Estimate(s.Levels)
	}
	return Estimate(nil)
}

// Start makes cfg a closed-loop sweep: the levels, or the search judged
// on the levels as they end.
func (Mode) Start(_ context.Context, st mode.Start, cfg *sweep.Config) mode.Run {
	ld := Of(st.Line).Load(sweep.ClosedMode, st)
	cfg.Load = ld
	return ld.Run()
}

// Load is the Load of these settings for the closed-loop mode of that
// name (the closed loop's, the sessions'): the levels, or the search.
func (s *Settings) Load(name string, st mode.Start) Load {
	ld := Load{Name: name, Levels: s.Levels}
	if s.Auto {
		ld.Chooser = s.search(name, st.Stats, st.Line.SLO)
	}
	if tiers := mode.SearchSLOs(st.Line); s.Auto && tiers != nil {
		ld.Chooser = mode.NewTierSearch(tiers, func(slo report.SLO) func() (int, bool) { return s.search(name, st.Stats, slo).Next },
			"--levels auto", st.Stats, func(c int) sweep.LevelKey { return sweep.LevelKey{Mode: name, Concurrency: c} })
	}
	return ld
}

// search is --levels auto's search against slo, of the levels of the mode
// of that name.
func (s *Settings) search(name string, stats *[]report.LevelStats, slo report.SLO) *Search {
	return NewSearch(s.AutoMax, s.AutoGranularity, mode.JudgeLevels(stats, slo, name))
}

// ShardCheck refuses what a sharded run cannot split: the search, a level
// below the shards (every shard needs a worker at every level).
func (Mode) ShardCheck(l *mode.Line, p sweep.Part) error {
	s := Of(l)
	if s.Auto {
		return mode.Usagef("--shard needs fixed --levels: an adaptive search cannot be split across shards")
	}
	for _, c := range s.Levels {
		if c < p.Of {
			return mode.Usagef("--shard %d/%d: level %d is below the %d shards: every shard needs a worker at every level", p.Index, p.Of, c, p.Of)
		}
	}
	return nil
}

// ShardLevels fills shard.json's levels; each shard runs its part of
// every level's workers.
func (Mode) ShardLevels(l *mode.Line, info *rundir.ShardInfo) []int {
	info.Levels = Of(l).Levels
	return info.Levels
}

// ShardSplit does nothing: the part of the workers is all there is to split.
func (Mode) ShardSplit(sweep.Part, *sweep.Config) {}

// parse parses --levels. Unsorted or repeated levels are sorted and
// de-duplicated with a warning.
func (s *Settings) parse(l *mode.Line) error {
	raw := s.Raw
	if strings.TrimSpace(raw) == "auto" {
		s.Auto = true
		return nil
	}
	var levels []int
	for _, f := range strings.Split(raw, ",") {
		f = strings.TrimSpace(f)
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > mode.MaxLevel {
			return mode.Usagef("invalid --levels %q: %s (want integers from 1 to %d, e.g. 1,2,4,8, or auto)", raw, badLevel(f), mode.MaxLevel)
		}
		levels = append(levels, n)
	}
	sorted := slices.Compact(slices.Sorted(slices.Values(levels)))
	if !slices.Equal(sorted, levels) {
		l.Warnings = append(l.Warnings, fmt.Sprintf("--levels %q sorted and de-duplicated to %s", raw, mode.JoinInts(sorted)))
	}
	s.Levels = sorted
	if l.Requests > 0 && l.Requests < sorted[len(sorted)-1] {
		l.Warnings = append(l.Warnings, fmt.Sprintf("--requests %d is below some levels; each level runs at least one measured request per worker (C)", l.Requests))
	}
	return nil
}

// badLevel says what is wrong with one --levels entry.
func badLevel(f string) string {
	if f == "" {
		return "an empty entry"
	}
	if n, err := strconv.Atoi(f); err == nil && n > mode.MaxLevel || errors.Is(err, strconv.ErrRange) && f[0] != '-' {
		return fmt.Sprintf("%s is too high", f)
	}
	return fmt.Sprintf("%q is not a positive integer", f)
}
