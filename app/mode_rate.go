package app

import (
	"context"
	"slices"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/rundir"
	"github.com/toksweep/toksweep/search"
	"github.com/toksweep/toksweep/sweep"
)

// rateMode is the open loop at offered request rates (sweep.RateMode):
// --rates, a list or auto (search.Rates), with its arrival process and
// cap (rates.go). The trace replay rides on its settings (mode_replay.go).
var rateMode = &legacyMode{
	name: sweep.RateMode, rank: 20, helpOrder: 2,
	flags:    rateFlags,
	check:    (*options).rates,
	chosen:   func(o *options) bool { return o.Open.on() },
	text:     func(o *options) string { return "at rates " + o.Open.text() },
	searched: func(o *options) bool { return o.Open.Auto },
	levels:   func(o *options) int { return len(o.Open.Rates) },
	conns:    func(o *options) int { return o.Open.MaxConcurrency },
	record:   func(o *options, rc *report.RunConfig) { rc.OpenLoop = o.Open.config() },
	estimate: func(o *options) mode.Estimate { return rateLevels{rates: o.Open.Rates, auto: o.Open.Auto} },
	// One level per rate, each shard sending its part of the plan's
	// arrivals with its part of the cap.
	shard: &modeShard{
		check: (*options).shardRates,
		levels: func(o *options, info *rundir.ShardInfo) []int {
			info.Rates = o.Open.Rates
			return slices.Repeat([]int{o.Open.MaxConcurrency}, len(o.Open.Rates))
		},
		split: func(p sweep.Part, cfg *sweep.Config) { cfg.Rate.Part = p },
	},
	start: func(_ context.Context, s modeStart, cfg *sweep.Config) modeRun {
		o := s.o
		o.Open.apply(cfg)
		if !o.Open.Auto {
			return modeRun{}
		}
		rates := search.NewRates(mode.JudgeRates(s.stats, o.SLO, sweep.LevelKey{Mode: sweep.RateMode, Concurrency: cfg.MaxConcurrency}), maxRate)
		cfg.RatePlan = rates
		return modeRun{search: rates}
	},
}

func init() { registerMode(rateMode) }
