package app

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/report"
)

// Defaults of the adaptive search.
const (
	defaultAutoMax         = 256
	defaultAutoGranularity = 1
)

func capacityFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Float64Flag{Name: "slo-decode-tps", Usage: "SLO: per-stream decode tok/s the slowest tenth of users must reach (decode_tps_p10)"},
		&cli.Float64Flag{Name: "slo-e2e-tps", Usage: "SLO: per-stream end-to-end tok/s the slowest tenth must reach (e2e_tps_p10)"},
		&cli.DurationFlag{Name: "slo-ttft-p95", Usage: "SLO: bound on TTFT p95, e.g. 2s"},
		&cli.Float64Flag{Name: "slo-error-rate", Usage: "SLO: bound on the failed share of requests, e.g. 0.01"},
		&cli.IntFlag{Name: "auto-max", Value: defaultAutoMax, Usage: "--levels auto: highest concurrency to try"},
		&cli.IntFlag{Name: "auto-granularity", Value: defaultAutoGranularity, Usage: "--levels auto: stop bisecting when the pass/fail levels are this close"},
	}
}

// capacity checks the SLO and adaptive-search flags.
func (o *options) capacity(c *cli.Context) error {
	o.SLO = report.SLO{
		DecodeTPS: c.Float64("slo-decode-tps"), E2ETPS: c.Float64("slo-e2e-tps"),
		TTFTP95: c.Duration("slo-ttft-p95"), ErrorRate: -1,
	}
	if c.IsSet("slo-error-rate") {
		o.SLO.ErrorRate = c.Float64("slo-error-rate")
	}
	o.AutoMax, o.AutoGranularity = c.Int("auto-max"), c.Int("auto-granularity")
	switch {
	case c.IsSet("slo-decode-tps") && o.SLO.DecodeTPS <= 0:
		return usagef("invalid --slo-decode-tps %v: want a rate > 0", o.SLO.DecodeTPS)
	case c.IsSet("slo-e2e-tps") && o.SLO.E2ETPS <= 0:
		return usagef("invalid --slo-e2e-tps %v: want a rate > 0", o.SLO.E2ETPS)
	case c.IsSet("slo-ttft-p95") && o.SLO.TTFTP95 <= 0:
		return usagef("invalid --slo-ttft-p95 %v: want a positive duration such as 2s", o.SLO.TTFTP95)
	case c.IsSet("slo-error-rate") && (o.SLO.ErrorRate < 0 || o.SLO.ErrorRate > 1):
		return usagef("invalid --slo-error-rate %v: want a share between 0 and 1, e.g. 0.01", o.SLO.ErrorRate)
	case o.AutoMax < 1 || o.AutoMax > maxLevel:
		return usagef("invalid --auto-max %d: want an integer from 1 to %d", o.AutoMax, maxLevel)
	case o.AutoGranularity < 1:
		return usagef("invalid --auto-granularity %d: want an integer ≥ 1", o.AutoGranularity)
	}
	return nil
}

// judge returns whether every repeat of level c passed the SLO, and the
// level's mean aggregate output tok/s, from the levels finished so far.
func judge(stats *[]report.LevelStats, slo report.SLO) func(c int) (bool, float64) {
	return func(c int) (bool, float64) {
		for _, g := range report.GroupByConcurrency(*stats) {
			if g.C == c {
				return g.Passes(slo), g.Aggregate
			}
		}
		return true, 0
	}
}

// levelsText describes the levels for the start-up line.
func (o *options) levelsText() string {
	if len(o.Open.Rates) > 0 {
		return o.Open.text()
	}
	if o.Auto {
		return fmt.Sprintf("auto (up to %d)", o.AutoMax)
	}
	return joinInts(o.Levels)
}
