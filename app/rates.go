package app

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/mode/closed"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/search"
	"github.com/toksweep/toksweep/sweep"
)

// maxRate bounds an offered rate (requests per second): a mistyped 1e9 must
// be a usage error, not a plan of a billion arrivals.
const maxRate = 10000

// minRate is the lowest offered rate (requests per second): one request
// every 1000 s. Below it a level is a wait, not a load (a mistyped 1e-300
// would wait forever and then be "the highest stable rate").
const minRate = 0.001

// rateFlags are the open-loop flags, bound into o.Flags.
func rateFlags(o *options) []cli.Flag {
	f := &o.Flags
	return []cli.Flag{
		&cli.StringFlag{Name: "rates", Destination: &f.Rates, Action: given[string](&f.RatesSet), Usage: "open loop: comma-separated offered rates in requests per second, e.g. 1,2,4,8, one level each (instead of --levels); latency counts from each request's scheduled instant"},
		&cli.StringFlag{Name: "arrival", Value: string(sweep.Poisson), Destination: &f.Arrival, Action: given[string](&f.ArrivalSet), Usage: "--rates: arrival process, constant, poisson or gamma (see --burstiness)"},
		&cli.Float64Flag{Name: "burstiness", Value: 1, Destination: &f.Burstiness, Action: given[float64](&f.BurstinessSet), Usage: "--rates --arrival gamma: gamma shape B of the gaps (CV 1/√B; 1 is Poisson, below 1 burstier)"},
		&cli.IntFlag{Name: "max-concurrency", DefaultText: "none", Destination: &f.MaxConcurrency, Action: given[int](&f.MaxConcurrencySet), Usage: "--rates: cap on requests in flight; requests over it wait in the client, and the wait counts as latency"},
	}
}

// rateSettings is what the open-loop flags chose; Rates empty means a
// closed-loop sweep.
type rateSettings struct {
	Rates          []float64
	Auto           bool // --rates auto: the rates are searched (rateauto.go)
	Spec           sweep.RateSpec
	MaxConcurrency int
}

// rates checks the open-loop flags.
func (o *options) rates() error {
	r, f := &o.Open, &o.Flags
	if !f.RatesSet {
		for _, g := range []struct {
			name string
			set  bool
		}{{"arrival", f.ArrivalSet}, {"burstiness", f.BurstinessSet}, {"max-concurrency", f.MaxConcurrencySet}} {
			if g.set {
				return usagef("--%s applies to an open-loop sweep: give --rates too, e.g. --rates 1,2,4", g.name)
			}
		}
		return nil
	}
	if (closed.Mode{}).Given(&o.Line) {
		return usagef("--rates and --levels are exclusive: --rates sweeps offered rates (open loop), --levels concurrencies (closed loop)")
	}
	if err := r.parse(f.Rates, &o.Warnings); err != nil {
		return err
	}
	r.Spec = sweep.RateSpec{Arrival: sweep.Arrival(f.Arrival), Burstiness: f.Burstiness, Seed: f.Seed}
	switch r.Spec.Arrival {
	case sweep.Constant, sweep.Poisson, sweep.Gamma:
	default:
		return usagef("invalid --arrival %q: want constant, poisson or gamma", r.Spec.Arrival)
	}
	if b := r.Spec.Burstiness; !(b > 0) || math.IsInf(b, 0) {
		return usagef("invalid --burstiness %v: want a number > 0 (1 is Poisson)", b)
	}
	if f.BurstinessSet && r.Spec.Arrival != sweep.Gamma {
		return usagef("--burstiness applies to --arrival gamma (got --arrival %s)", r.Spec.Arrival)
	}
	// The closed-loop levels do not apply, nor what was said about them.
	closed.Of(&o.Line).Levels = nil
	o.Warnings = slices.DeleteFunc(o.Warnings, func(w string) bool { return strings.HasPrefix(w, "--requests") })
	r.MaxConcurrency = f.MaxConcurrency
	if f.MaxConcurrencySet && (r.MaxConcurrency < 1 || r.MaxConcurrency > mode.MaxLevel) {
		return usagef("invalid --max-concurrency %d: want an integer from 1 to %d", r.MaxConcurrency, mode.MaxLevel)
	}
	return nil
}

// apply makes cfg an open-loop sweep when rates were given.
func (r rateSettings) apply(cfg *sweep.Config) {
	if !r.on() {
		return
	}
	cfg.Rates, cfg.Rate, cfg.MaxConcurrency = r.Rates, r.Spec, r.MaxConcurrency
}

// config is r for summary.json; nil for a closed loop.
func (r rateSettings) config() *report.OpenLoopConfig {
	if !r.on() {
		return nil
	}
	rc := &report.OpenLoopConfig{Rates: r.Rates, Auto: r.Auto, Arrival: string(r.Spec.Arrival), Seed: r.Spec.Seed, MaxConcurrency: r.MaxConcurrency}
	if r.Spec.Arrival == sweep.Gamma {
		rc.Burstiness = r.Spec.Burstiness
	}
	return rc
}

// on reports whether the sweep is open-loop.
func (r rateSettings) on() bool { return len(r.Rates) > 0 || r.Auto }

// text describes the rates for the start-up line.
func (r rateSettings) text() string {
	s := search.JoinRates(r.Rates) + " req/s (" + string(r.Spec.Arrival)
	if r.Auto {
		s = "auto (" + string(r.Spec.Arrival)
	}
	if r.Spec.Arrival == sweep.Gamma {
		s += fmt.Sprintf(", burstiness %g", r.Spec.Burstiness)
	}
	if r.MaxConcurrency > 0 {
		s += fmt.Sprintf(", at most %d in flight", r.MaxConcurrency)
	}
	return s + ")"
}

// parse reads --rates: "auto" or a list of rates.
func (r *rateSettings) parse(raw string, warnings *[]string) error {
	if strings.TrimSpace(raw) == "auto" {
		r.Auto = true
		return nil
	}
	for _, f := range strings.Split(raw, ",") {
		f = strings.TrimSpace(f)
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || !(v >= minRate) || v > maxRate || math.IsInf(v, 0) {
			return usagef("invalid --rates %q: %q is not a rate (want numbers of requests per second from %g to %d, e.g. 0.5,1,2,4)", raw, f, minRate, maxRate)
		}
		r.Rates = append(r.Rates, v)
	}
	sorted := slices.Compact(slices.Sorted(slices.Values(r.Rates)))
	if !slices.Equal(sorted, r.Rates) {
		*warnings = append(*warnings, fmt.Sprintf("--rates %q sorted and de-duplicated to %s", raw, search.JoinRates(sorted)))
	}
	r.Rates = sorted
	return nil
}
