package rate

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/mode/openloop"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/rundir"
	"github.com/toksweep/toksweep/sweep"
)

// minRate is the lowest offered rate (requests per second): one request
// every 1000 s. Below it a level is a wait, not a load (a mistyped 1e-300
// would wait forever and then be "the highest stable rate").
const minRate = 0.001

// Settings are the rate mode's settings on a command line: its flags as
// given, and what Parse made of them.
type Settings struct {
	Raw, Arrival         string // --rates, --arrival as given
	Burstiness           float64
	RatesSet, ArrivalSet bool
	BurstinessSet        bool
	Rates                []float64 // checked: ascending, no repeats; nil with Auto
	Auto                 bool      // --rates auto: the rates are searched
	Spec                 sweep.RateSpec
}

// Of is the rate mode's settings in l.
func Of(l *mode.Line) *Settings { return mode.Settings[Settings](l, Name) }

// Flags are --rates and its arrival process.
func (Mode) Flags(l *mode.Line) []cli.Flag {
	s := Of(l)
	return []cli.Flag{
		&cli.StringFlag{Name: "rates", Destination: &s.Raw, Action: mode.Given[string](&s.RatesSet), Usage: "open loop: comma-separated offered rates in requests per second, e.g. 1,2,4,8, one level each (instead of --levels); latency counts from each request's scheduled instant"},
		&cli.StringFlag{Name: "arrival", Value: string(sweep.Poisson), Destination: &s.Arrival, Action: mode.Given[string](&s.ArrivalSet), Usage: "--rates: arrival process, constant, poisson or gamma (see --burstiness)"},
		&cli.Float64Flag{Name: "burstiness", Value: 1, Destination: &s.Burstiness, Action: mode.Given[float64](&s.BurstinessSet), Usage: "--rates --arrival gamma: gamma shape B of the gaps (CV 1/√B; 1 is Poisson, below 1 burstier)"},
	}
}

// Category is "open loop", the flags' category in --help.
func (Mode) Category() string { return "open loop" }

// HelpOrder is 2: after the closed loop's and the sessions' flags.
func (Mode) HelpOrder() int { return 2 }

// FlagsBefore is none: the flags stand in the modes' block.
func (Mode) FlagsBefore() map[string]string { return nil }

// Given reports whether --rates, --arrival or --burstiness was given.
func (Mode) Given(l *mode.Line) bool {
	s := Of(l)
	return s.RatesSet || s.ArrivalSet || s.BurstinessSet
}

// Parse checks the rates and the arrival process: --arrival and
// --burstiness need --rates, --burstiness needs --arrival gamma.
func (Mode) Parse(l *mode.Line) error {
	s := Of(l)
	if !s.RatesSet {
		for _, g := range []struct {
			name string
			set  bool
		}{{"arrival", s.ArrivalSet}, {"burstiness", s.BurstinessSet}} {
			if g.set {
				return mode.Usagef("--%s applies to an open-loop sweep: give --rates too, e.g. --rates 1,2,4", g.name)
			}
		}
		return nil
	}
	if err := s.parse(l); err != nil {
		return err
	}
	s.Spec = sweep.RateSpec{Arrival: sweep.Arrival(s.Arrival), Burstiness: s.Burstiness, Seed: l.Seed}
	switch s.Spec.Arrival {
	case sweep.Constant, sweep.Poisson, sweep.Gamma:
	default:
		return mode.Usagef("invalid --arrival %q: want constant, poisson or gamma", s.Spec.Arrival)
	}
	if b := s.Spec.Burstiness; !(b > 0) || math.IsInf(b, 0) {
		return mode.Usagef("invalid --burstiness %v: want a number > 0 (1 is Poisson)", b)
	}
	if s.BurstinessSet && s.Spec.Arrival != sweep.Gamma {
		return mode.Usagef("--burstiness applies to --arrival gamma (got --arrival %s)", s.Spec.Arrival)
	}
	return nil
}

// parse reads --rates: "auto" or a list of rates, sorted and
// de-duplicated with a warning.
func (s *Settings) parse(l *mode.Line) error {
	raw := s.Raw
	if strings.TrimSpace(raw) == "auto" {
		s.Auto = true
		return nil
	}
	var rates []float64
	for _, f := range strings.Split(raw, ",") {
		f = strings.TrimSpace(f)
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || !(v >= minRate) || v > openloop.MaxRate || math.IsInf(v, 0) {
			return mode.Usagef("invalid --rates %q: %q is not a rate (want numbers of requests per second from %g to %d, e.g. 0.5,1,2,4)", raw, f, minRate, openloop.MaxRate)
		}
		rates = append(rates, v)
	}
	sorted := slices.Compact(slices.Sorted(slices.Values(rates)))
	if !slices.Equal(sorted, rates) {
		l.Warnings = append(l.Warnings, fmt.Sprintf("--rates %q sorted and de-duplicated to %s", raw, openloop.JoinRates(sorted)))
	}
	s.Rates = sorted
	return nil
}

// Check has nothing more to check once the workload is known.
func (Mode) Check(*mode.Line) error { return nil }

// Chosen reports whether --rates was given.
func (Mode) Chosen(l *mode.Line) bool { return Of(l).RatesSet }

// Text is the rates in the start-up line: "at rates 8,16 req/s (poisson,
// at most 4 in flight)".
func (Mode) Text(l *mode.Line) string {
	s := Of(l)
	t := "at rates " + openloop.JoinRates(s.Rates) + " req/s (" + string(s.Spec.Arrival)
	if s.Auto {
		t = "at rates auto (" + string(s.Spec.Arrival)
	}
	if s.Spec.Arrival == sweep.Gamma {
		t += fmt.Sprintf(", burstiness %g", s.Spec.Burstiness)
	}
	if l.Cap > 0 {
		t += fmt.Sprintf(", at most %d in flight", l.Cap)
	}
	return t + ")"
}

// Searched reports whether --rates auto chooses the rates.
func (Mode) Searched(l *mode.Line) bool { return Of(l).Auto }

// Levels is how many rates the sweep plans.
func (Mode) Levels(l *mode.Line) int { return len(Of(l).Rates) }

// Conns is the cap (0: the default pool; an uncapped open loop opens as
// many connections as it needs).
func (Mode) Conns(l *mode.Line) int { return l.Cap }

// Streams is not known before the sweep: an open loop's streams follow
// the server.
func (Mode) Streams(*mode.Line) int { return 0 }

// Record puts the rates and their arrival process in summary.json's
// config.
func (Mode) Record(l *mode.Line, rc *report.RunConfig) {
	s := Of(l)
	rc.OpenLoop = &report.OpenLoopConfig{Rates: s.Rates, Auto: s.Auto, Arrival: string(s.Spec.Arrival), Seed: s.Spec.Seed, MaxConcurrency: l.Cap}
	if s.Spec.Arrival == sweep.Gamma {
		rc.OpenLoop.Burstiness = s.Spec.Burstiness
	}
}

// Summary adds nothing beside the config.
func (Mode) Summary(*mode.Line, *report.Summary) {}

// Estimate is the rate mode's time estimate.
func (Mode) Estimate(l *mode.Line) mode.Estimate {
	s := Of(l)
	return Estimate{Rates: s.Rates, Auto: s.Auto}
}

// Start makes cfg a rate sweep: the rates, or the search judged on the
// levels as they end.
func (Mode) Start(_ context.Context, st mode.Start, cfg *sweep.Config) mode.Run {
	s := Of(st.Line)
	ld := &Load{Rates: s.Rates, Spec: s.Spec, Cap: st.Line.Cap}
	cfg.Load = ld
	if !s.Auto {
		return mode.Run{}
	}
	at := sweep.LevelKey{Mode: Name, Concurrency: ld.Cap}
	if tiers := mode.SearchSLOs(st.Line); tiers != nil {
		search := mode.NewTierSearch(tiers, func(slo report.SLO) func() (float64, bool) { return NewSearch(mode.JudgeRates(st.Stats, slo, at)).Next },
			"--rates auto", st.Stats, func(r float64) sweep.LevelKey { k := at; k.Load = r; return k })
		ld.Chooser = search
		return mode.Run{Search: search}
	}
	search := NewSearch(mode.JudgeRates(st.Stats, st.Line.SLO, at))
	ld.Chooser = search
	return mode.Run{Search: search}
}

// ShardCheck refuses what a sharded open loop cannot split exactly: the
// search, a count, a warm-up, a cap below the shards, and a plan of fewer
// arrivals than shards in --level-duration.
func (Mode) ShardCheck(l *mode.Line, p sweep.Part) error {
	s := Of(l)
	switch {
	case s.Auto:
		return mode.Usagef("--shard needs fixed --rates: an adaptive search cannot be split across shards")
	case l.Requests > 0:
		return mode.Usagef("--shard with --rates: the levels are bounded by --level-duration; drop --requests")
	case l.Warmup > 0:
		return mode.Usagef("--shard with --rates does not take --warmup: the warm-up arrivals would not be the whole plan's first")
	case l.CapSet && l.Cap < p.Of:
		return mode.Usagef("--shard %d/%d: --max-concurrency %d is below the %d shards: each shard caps its part of it", p.Index, p.Of, l.Cap, p.Of)
	}
	// Every shard draws every plan now, so all of them refuse alike.
	for _, rate := range s.Rates {
		for r := range max(l.Repeat, 1) {
			n, err := s.Spec.CountArrivals(rate, l.LevelDuration, r, p.Of)
			if err != nil {
				return mode.Usagef("--rates %g: %v", rate, err)
			}
			if n < p.Of {
				return mode.Usagef("--shard %d/%d: the plan at %g req/s holds %d arrivals in --level-duration %v, fewer than the %d shards, so a shard would send nothing: lengthen --level-duration or run fewer shards",
					p.Index, p.Of, rate, n, l.LevelDuration, p.Of)
			}
		}
	}
	return nil
}

// ShardLevels fills shard.json's rates; each shard takes its part of the
// cap at every level.
func (Mode) ShardLevels(l *mode.Line, info *rundir.ShardInfo) []int {
	info.Rates = Of(l).Rates
	return slices.Repeat([]int{l.Cap}, len(info.Rates))
}

// ShardSplit gives this shard its part p of every plan's arrivals.
func (Mode) ShardSplit(p sweep.Part, cfg *sweep.Config) {
	if ld, ok := cfg.Load.(*Load); ok {
		ld.Spec.Part = p
	}
}
