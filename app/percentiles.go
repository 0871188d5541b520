package app

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
)

// percentileFlags is --percentiles, bound into o.Flags.
func percentileFlags(o *options) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "percentiles", Destination: &o.Flags.Percentiles, Usage: "extra percentiles of TTFT, e2e latency, TPOT, ITL and decode tok/s as levels.csv and summary.json columns, e.g. 50,90,95,99,99.9 (99.9 is ttft_p999_ms); the default keeps the usual columns only"},
	}
}

// percentiles checks --percentiles: numbers in (0, 100], sorted and
// de-duplicated.
func (o *options) percentiles() error {
	raw := strings.TrimSpace(o.Flags.Percentiles)
	if raw == "" {
		return nil
	}
	var ps []float64
	for _, f := range strings.Split(raw, ",") {
		f = strings.TrimSpace(f)
		p, err := strconv.ParseFloat(f, 64)
		if err != nil || !(p > 0 && p <= 100) || math.IsNaN(p) {
			return usagef("invalid --percentiles %q: %q is not a percentile (want numbers above 0 and up to 100, e.g. 50,90,99,99.9)", raw, f)
		}
		ps = append(ps, p)
	}
	o.Percentiles = slices.Compact(slices.Sorted(slices.Values(ps)))
	return nil
}
