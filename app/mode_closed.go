package app

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/rundir"
	"github.com/toksweep/toksweep/search"
	"github.com/toksweep/toksweep/sweep"
)

// Defaults of the adaptive search.
const (
	defaultAutoMax         = 256
	defaultAutoGranularity = 1
)

// closedMode is the closed loop (sweep.ClosedMode): --levels, a list of
// concurrencies or auto (search.Levels, bounded by --auto-max). It takes
// every command line no other mode takes. The sessions mode shares its
// levels (mode_sessions.go).
var closedMode = &mode{
	name: sweep.ClosedMode, rank: 100,
	flags: closedFlags,
	// --levels stands with the per-level counts in --help, the search's
	// bounds after the SLO they search against.
	before: map[string]string{"levels": "requests", "auto-max": "reading-speed", "auto-granularity": "reading-speed"},
	parse:  (*options).closedLevels,
	chosen: func(*options) bool { return true },
	text: func(o *options) string {
		if o.Auto {
			return fmt.Sprintf("at levels auto (up to %d)", o.AutoMax)
		}
		return "at levels " + joinInts(o.Levels)
	},
	searched: func(o *options) bool { return o.Auto },
	levels:   func(o *options) int { return len(o.Levels) },
	conns: func(o *options) int {
		if len(o.Levels) == 0 {
			return 0
		}
		return o.Levels[len(o.Levels)-1]
	},
	streams: func(o *options) int {
		if o.Auto {
			return o.AutoMax
		}
		if len(o.Levels) == 0 {
			return 0
		}
		return slices.Max(o.Levels)
	},
	record: func(o *options, rc *report.RunConfig) {
		rc.Levels = o.Levels
		if o.Auto {
			rc.LevelsAuto, rc.AutoMax = true, o.AutoMax
		}
	},
	// Each shard runs its part of every level's workers.
	shard: &modeShard{
		check: (*options).shardLevels,
		levels: func(o *options, info *rundir.ShardInfo) []int {
			info.Levels = o.Levels
			return o.Levels
		},
	},
	estimate: func(o *options) estimate {
		if o.Auto {
			return closedLevels(nil)
		}
		return closedLevels(o.Levels)
	},
	start: closedStart(sweep.ClosedMode),
}

// closedStart is the start of a closed-loop mode of that name: its
// levels, or the search judged on its own levels.
func closedStart(name string) func(context.Context, modeStart, *sweep.Config) modeRun {
	return func(_ context.Context, s modeStart, cfg *sweep.Config) modeRun {
		o := s.o
		cfg.Levels = o.Levels
		if o.Auto {
			cfg.Plan = search.NewLevels(o.AutoMax, o.AutoGranularity, search.JudgeLevels(s.stats, o.SLO, name))
		}
		return modeRun{}
	}
}

func init() { registerMode(closedMode) }

// closedFlags are --levels and the bounds of --levels auto.
func closedFlags(o *options) []cli.Flag {
	f := &o.Flags
	return []cli.Flag{
		&cli.StringFlag{Name: "levels", Value: defaultLevels, Destination: &f.Levels, Action: given[string](&f.LevelsSet), Usage: "comma-separated concurrency levels, run in ascending order, or auto (adaptive search; see --slo-*)"},
		&cli.IntFlag{Name: "auto-max", Value: defaultAutoMax, Destination: &o.AutoMax, Usage: "--levels auto: highest concurrency to try"},
		&cli.IntFlag{Name: "auto-granularity", Value: defaultAutoGranularity, Destination: &o.AutoGranularity, Usage: "--levels auto: stop bisecting when the pass/fail levels are this close"},
	}
}

// closedLevels checks the bounds of the adaptive search and parses
// --levels (levels, below), at most maxLevelList of them.
func (o *options) closedLevels() error {
	switch {
	case o.AutoMax < 1 || o.AutoMax > maxLevel:
		return usagef("invalid --auto-max %d: want an integer from 1 to %d", o.AutoMax, maxLevel)
	case o.AutoGranularity < 1:
		return usagef("invalid --auto-granularity %d: want an integer ≥ 1", o.AutoGranularity)
	}
	if err := o.levels(); err != nil {
		return err
	}
	if len(o.Levels) > maxLevelList {
		return usagef("invalid --levels: %d levels, at most %d, toksweep's bound", len(o.Levels), maxLevelList)
	}
	return nil
}

// closedLevels is the closed loop's estimate: its concurrencies in run
// order; nil when a search chooses them.
type closedLevels []int

var _ estimate = closedLevels(nil)

func (l closedLevels) upFront(p sweepPlan) string {
	per := p.assumedPerRequest()
	how := p.how(per)
	if len(l) == 0 {
		return fmt.Sprintf("levels are chosen as the sweep goes; a level takes %s: %.0f requests per worker %s",
			about(p.levelTime(4, per)), p.rounds(4), how)
	}
	lo, hi := math.Inf(1), 0.0
	for _, c := range l {
		lo, hi = min(lo, p.rounds(c)), max(hi, p.rounds(c))
	}
	rounds := span(lo, hi)
	runs := p.runsText(len(l), "level")
	if p.duration > 0 {
		return fmt.Sprintf("the sweep takes %s: %s × up to %s (--duration) or %s requests per worker %s",
			about(l.timeLeft(p, 0, per)), runs, p.duration, rounds, how)
	}
	return fmt.Sprintf("the sweep takes %s: %s × %s requests per worker %s", about(l.timeLeft(p, 0, per)), runs, rounds, how)
}

func (l closedLevels) runs(p sweepPlan) int { return len(l) * p.repeat }

// perRequest: a closed-loop level lasts rounds(C) requests.
func (closedLevels) perRequest(p sweepPlan, k sweep.LevelKey, elapsed time.Duration) (time.Duration, bool) {
	r := p.rounds(k.Concurrency)
	if !(r > 0) || k.Concurrency < 1 {
		return 0, false
	}
	return time.Duration(float64(elapsed) / r), true
}

func (closedLevels) alone(p sweepPlan, k sweep.LevelKey, at time.Duration) time.Duration {
	return p.alone(k.Concurrency, at)
}

func (l closedLevels) timeLeft(p sweepPlan, done int, perRequest time.Duration) time.Duration {
	var t time.Duration
	run := 0
	for _, c := range l {
		for range p.repeat {
			if run >= done {
				t += p.levelTime(c, perRequest)
			}
			run++
		}
	}
	return t
}

// levels parses --levels. Unsorted or repeated levels are sorted and
// de-duplicated with a warning.
func (o *options) levels() error {
	raw := o.Flags.Levels
	if strings.TrimSpace(raw) == "auto" {
		o.Auto = true
		return nil
	}
	var levels []int
	for _, f := range strings.Split(raw, ",") {
		f = strings.TrimSpace(f)
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > maxLevel {
			return usagef("invalid --levels %q: %s (want integers from 1 to %d, e.g. 1,2,4,8, or auto)", raw, badLevel(f), maxLevel)
		}
		levels = append(levels, n)
	}
	sorted := slices.Compact(slices.Sorted(slices.Values(levels)))
	if !slices.Equal(sorted, levels) {
		o.Warnings = append(o.Warnings, fmt.Sprintf("--levels %q sorted and de-duplicated to %s", raw, joinInts(sorted)))
	}
	o.Levels = sorted
	if o.Requests > 0 && o.Requests < sorted[len(sorted)-1] {
		o.Warnings = append(o.Warnings, fmt.Sprintf("--requests %d is below some levels; each level runs at least one measured request per worker (C)", o.Requests))
	}
	return nil
}

// maxLevel bounds a concurrency level: each worker holds a goroutine, a
// connection and its buffers, and a mistyped 10000000 must be a usage error,
// not an out-of-memory crash.
const maxLevel = 100000

// badLevel says what is wrong with one --levels entry.
func badLevel(f string) string {
	if f == "" {
		return "an empty entry"
	}
	if n, err := strconv.Atoi(f); err == nil && n > maxLevel || errors.Is(err, strconv.ErrRange) && f[0] != '-' {
		return fmt.Sprintf("%s is too high", f)
	}
	return fmt.Sprintf("%q is not a positive integer", f)
}
