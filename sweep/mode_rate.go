package sweep

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// RateMode is the open loop at offered request rates (Config.Rates or
// RatePlan): arrivals drawn from Config.Rate at each rate, capped at
// Config.MaxConcurrency in flight; levels keyed by the nominal rate
// (LevelKey.Load, req/s) and the cap. Its own files are the only place
// that tests a rate's presence.
const RateMode = "rate"

func init() {
	Register(&legacyMode{
		name: RateMode, rank: 10, open: true,
		selects: func(cfg *Config) bool { return cfg.RatePlan != nil || len(cfg.Rates) > 0 },
		keys:    rateKeys,
		claims:  func(l *Level) bool { return l.Rate > 0 },
		measured: func(cfg *Config, k LevelKey) int {
			if cfg.Requests <= 0 {
				return AutoRateRequests(k.Load)
			}
			return cfg.Requests
		},
		arrivals:   rateArrivals,
		warmConns:  rateWarmConns,
		abortAfter: openAbortAfterOf,
		unbounded:  uncapped,
		words: Words{
			Name:          rateName,
			At:            func(k LevelKey) string { return fmt.Sprintf("rate %g req/s", k.Load) },
			Unit:          "requests per second",
			Users:         "concurrent users",
			Axis:          "offered rate (req/s)",
			Aggregate:     "at the offered rate",
			Caption:       "at each offered rate; where doubling the rate adds little, it has saturated (the knee)",
			ClientLimited: "were", ClientLimitedOne: "was",
			Load:  rateLoad,
			Level: "rate", Levels: "rates",
			Head: "rate/s",
		},
	})
}

// rateKeys iterates over the rates: the planner's choices, else the list.
func rateKeys(cfg *Config) func() (LevelKey, bool) {
	key := func(r float64) LevelKey { return LevelKey{Mode: RateMode, Concurrency: cfg.MaxConcurrency, Load: r} }
	if cfg.RatePlan != nil {
		return func() (LevelKey, bool) {
			r, ok := cfg.RatePlan.NextRate()
			return key(r), ok
		}
	}
	i := 0
	return func() (LevelKey, bool) {
		if i >= len(cfg.Rates) {
			return LevelKey{}, false
		}
		i++
		return key(cfg.Rates[i-1]), true
	}
}

// rateArrivals is the open loop over a plan drawn as it goes. A plan
// bounded by Duration covers the warm-up arrivals plus Duration; one with
// a count too ends at Duration (the tickets close the level then).
func rateArrivals(cfg *Config, k LevelKey, measured, repeat int) (Arrivals, error) {
	n := cfg.Warmup + measured
	var until time.Duration
	if measured == unlimited {
		n = 0
		warm := float64(cfg.Warmup) / k.Load * float64(time.Second)
		until = time.Duration(min(warm+float64(cfg.Duration), math.MaxInt64/2))
	}
	plan, err := cfg.Rate.Schedule(k.Load, n, until, repeat)
	return OpenLoop(plan), err
}

// uncapped: an open loop's Concurrency is its cap, 0 for none (the rate
// mode's and the replay's Unbounded).
func uncapped(k LevelKey) bool { return k.Concurrency == 0 }

// openAbortAfterOf: the cap's requests, else openAbortAfter (the rate
// mode's and the replay's AbortAfter).
func openAbortAfterOf(k LevelKey) int {
	if uncapped(k) {
		return openAbortAfter
	}
	return k.Concurrency
}

// rateWarmConns: the cap, else about a second's arrivals (at most 64).
func rateWarmConns(k LevelKey) int {
	if !uncapped(k) {
		return k.Concurrency
	}
	return min(max(int(math.Ceil(k.Load)), 1), 64)
}

// rateName is "rate=4/s", with its cap "rate=4/s C≤2".
func rateName(k LevelKey) string {
	name := fmt.Sprintf("rate=%g/s", k.Load)
	if !uncapped(k) {
		name += fmt.Sprintf(" C≤%d", k.Concurrency)
	}
	return name
}

// rateLoad is the rate mode's Words.Load: RateText. The note is left out:
// "req/s offered" already says the load is a rate.
func rateLoad(k LevelKey, offered float64, _ string) string { return RateText(offered, k.Load) }

// RateText is how every sentence names a rate level: the rate its plan
// offered (4 significant digits), the nominal rate in brackets, "23.93
// req/s offered (nominal 25.1)"; a level whose offered rate is not known
// (0 or NaN: none recorded) is "25.1 req/s (nominal)". The console's
// closing paragraph, --rates auto's answer, the time estimate, the level
// lines and plan all name rate levels through it.
func RateText(offered, nominal float64) string {
	if !(offered > 0) || math.IsInf(offered, 0) {
		return fmt.Sprintf("%g req/s (nominal)", nominal)
	}
	off, _ := strconv.ParseFloat(strconv.FormatFloat(offered, 'g', 4, 64), 64)
	return fmt.Sprintf("%g req/s offered (nominal %g)", off, nominal)
}
