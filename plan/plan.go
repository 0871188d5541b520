package plan

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/rundir"
	"github.com/toksweep/toksweep/sweep"
)

// DefaultHeadroom is the share of a replica's measured throughput the plan
// uses by default: 0.75 leaves a quarter for bursts and noise.
const DefaultHeadroom = 0.75

// SecondsPerDay converts a rate per second into one per day.
const SecondsPerDay = 86400

// MaxUsers bounds --users: beyond it a count is no longer exact in the
// float arithmetic of the sizing.
const MaxUsers = 1_000_000_000_000

// MaxReplicas is the largest replica count a plan states; a question whose
// answer is above it (or not a finite count) is refused (ErrCannotAnswer).
const MaxReplicas = 1_000_000_000

// ErrCannotAnswer is the error when the run cannot answer the question
// asked (the count would be infinite, not a number, negative or beyond
// MaxReplicas); the command exits 2.
var ErrCannotAnswer = errors.New("the run cannot answer this question")

// Options are what the user asks the plan for.
type Options struct {
	PeakRPS  float64 // λ, peak arrivals in requests per second (> 0)
	Users    int     // N concurrent users to size for; 0: not asked
	Headroom float64 // h, share of a replica's measured throughput used, in (0, 1]
	// GPUsPerReplica (G) and GPUHourUSD (P) price the output; both 0:
	// no price.
	GPUsPerReplica float64
	GPUHourUSD     float64
}

// Check reports the first invalid option, in words for a one-line error.
func (o Options) Check() error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case !(o.PeakRPS > 0) || !finite(o.PeakRPS):
		return fmt.Errorf("invalid --peak-rps %v: want a positive rate (requests per second)", o.PeakRPS)
	case o.Users < 0 || o.Users > MaxUsers:
		return fmt.Errorf("invalid --users %d: want a count from 1 to %d", o.Users, MaxUsers)
	case !(o.Headroom > 0 && o.Headroom <= 1):
		return fmt.Errorf("invalid --headroom %v: want a share in (0, 1], e.g. 0.75", o.Headroom)
	case (o.GPUsPerReplica != 0) != (o.GPUHourUSD != 0):
		return errors.New("--gpus-per-replica and --gpu-hour-usd go together: give both or neither")
	case o.GPUsPerReplica < 0 || !finite(o.GPUsPerReplica):
		return fmt.Errorf("invalid --gpus-per-replica %v: want a count > 0", o.GPUsPerReplica)
	case o.GPUHourUSD < 0 || !finite(o.GPUHourUSD):
		return fmt.Errorf("invalid --gpu-hour-usd %v: want a price > 0", o.GPUHourUSD)
	}
	return nil
}

func (o Options) priced() bool { return o.GPUsPerReplica > 0 && o.GPUHourUSD > 0 }

// Basis says how the level was chosen.
type Basis string

const (
	BasisSLO  Basis = "slo"  // the highest level that met the SLO, every lower one passing
	BasisKnee Basis = "knee" // no SLO: the knee (report.Recommend)
	// BasisBound is a run with neither: its highest level, which ran
	// stable and within the error bound. A replica held that level, so its
	// capacity is at least the level's figures: the counts and the cost
	// are upper bounds, the tokens per day a lower one (Plan.Bounds).
	BasisBound Basis = "bound"
)

// Level is the chosen level's measured figures, pooled over its repeats.
type Level struct {
	Key         string // how the run names it, e.g. "C=4", "rate=16/s"
	Concurrency int
	Rate        float64 // an open-loop level's nominal offered rate (req/s); 0 otherwise
	Open        bool    // an open-loop level: X is its achieved rate, Users its mean in flight
	Repeats     int
	// Users is the number of requests in flight the level held: C in a
	// closed loop, the measured mean in flight in an open loop. It is N's
	// unit in the users sizing and L in Little's law.
	Users float64
	// RequestsPerS is X, mean over repeats: the steady window's completion
	// rate in a closed loop, the achieved rate in an open loop.
	RequestsPerS float64
	OfferedRPS   float64 // an open-loop level's realised offered rate, mean over repeats; 0 otherwise
	OutputTPS    float64 // T, aggregate_output_tps, mean over repeats
	// MeanE2E is E[E2E], the mean End − Start over the successful measured
	// requests of every repeat, and E2ERequests their number.
	MeanE2E       time.Duration
	E2ERequests   int
	ClientLimited bool // a repeat was client-limited: the figures may describe the client
	// Sessions are a multi-turn level's figures in sessions (its Users
	// are then concurrent sessions); nil for a level of a mode that runs
	// none (sweep.LevelKey.RunsSessions).
	Sessions *SessionLevel
	key      sweep.LevelKey // the level's key: its mode's words name its units
	// TokensPerJ is the GPUs' output tokens per joule, pooled over the
	// repeats (pooledTokensPerJ); NaN unless each one measured it.
	TokensPerJ float64
}

// Plan is a fleet plan: the chosen level and what it implies.
type Plan struct {
	Run     string
	SLO     string // the run's SLO in words, "" without one
	Basis   Basis
	Why     string // why this level, and what limits it, in one sentence
	Level   Level
	Options Options

	// Replicas = ceil(λ / (X × h)); ReplicasN1 adds one spare (N+1).
	Replicas, ReplicasN1 int
	// UserReplicas = ceil(N / (C × h)), and its N+1; 0 without Users.
	UserReplicas, UserReplicasN1 int
	// LittleRPS is C / E[E2E], the rate Little's law predicts from the
	// level's concurrency and mean latency, to set against X.
	LittleRPS float64
	// TokensPerDay is T × 86400, per replica.
	TokensPerDay float64
	// CostPerMTok is G × P / (T × 3600) × 1e6 dollars; NaN without a price.
	CostPerMTok float64
	// KWhPerMTok is 1e6 / (TokensPerJ × 3.6e6) kWh; NaN without it.
	KWhPerMTok float64
	// Tiers are the plans at each SLO tier's answer (sweep --slo-tier),
	// in the tiers' order; nil for a run without tiers.
	Tiers []TierPlan
}

// Make plans from run with o (which must pass Check). It fails when no
// level can be planned on: none met the SLO, or, without an SLO, the run
// found no knee and its highest level cannot bear a verdict (unstable,
// failing).
func Make(run rundir.SavedRun, o Options) (Plan, error) {
	var slo string
	if run.Summary.Recommendation != nil {
		slo = run.Summary.Recommendation.SLO
	}
	stats := run.Stats()
	p, err := fromParts(run.Path, slo, stats, run.Levels, o)
	if err == nil {
		p.Tiers = TierPlans(run.Path, stats, run.Levels, run.Summary.Config.Tiers(), o)
	}
	return p, err
}

// fromParts is Make on a run's parts: stats[i] are the figures of levels[i],
// with the SLO verdict each level was given (nil: the run had no SLO).
func fromParts(path, slo string, stats []report.LevelStats, levels []sweep.Level, o Options) (Plan, error) {
	if err := o.Check(); err != nil {
		return Plan{}, err
	}
	p := Plan{Run: path, SLO: slo, Options: o, CostPerMTok: math.NaN()}
	chosen, err := p.choose(stats, levels)
	if err != nil {
		return Plan{}, err
	}
	if err := p.size(stats, levels, chosen); err != nil {
		return Plan{}, err
	}
	return p, nil
}

// size sets p's level to group g's figures pooled, and the figures the
// options ask for at it.
func (p *Plan) size(stats []report.LevelStats, levels []sweep.Level, g group) error {
	o := p.Options
	p.Level = pool(levels, stats, g)
	l := p.Level
	if !(l.RequestsPerS > 0) || !(l.OutputTPS > 0) || l.MeanE2E <= 0 {
		return fmt.Errorf("level %s delivered no throughput to plan on", l.Key)
	}
	var err error
	if p.Replicas, err = count("--peak-rps", o.PeakRPS/(l.RequestsPerS*o.Headroom)); err != nil {
		return err
	}
	p.ReplicasN1 = p.Replicas + 1
	if o.Users > 0 {
		if !(l.Users > 0) {
			return fmt.Errorf("%w: --users needs the requests level %s held in flight, and it measured none", ErrCannotAnswer, l.Key)
		}
		if p.UserReplicas, err = count("--users", float64(o.Users)/(l.Users*o.Headroom)); err != nil {
			return err
		}
		p.UserReplicasN1 = p.UserReplicas + 1
	}
	p.LittleRPS = l.Users / l.MeanE2E.Seconds()
	p.TokensPerDay = l.OutputTPS * SecondsPerDay
	p.KWhPerMTok = kwhPerMTok(l.TokensPerJ)
	if o.priced() {
		p.CostPerMTok = o.GPUsPerReplica * o.GPUHourUSD / (l.OutputTPS * 3600) * 1e6
	}
	return nil
}

// count is the replica count ceil(x), refused (ErrCannotAnswer) when x
// is not a finite number from 0 to MaxReplicas.
func count(flag string, x float64) (int, error) {
	if !(x >= 0 && x <= MaxReplicas) {
		return 0, fmt.Errorf("%w: %s needs %g replicas, beyond the %d a plan states", ErrCannotAnswer, flag, x, MaxReplicas)
	}
	return ceil(x), nil
}

// ceil rounds x up, taking a value within 1e-9 of an integer for that
// integer: an exact multiple of a replica's capacity needs no extra replica
// from floating-point noise.
func ceil(x float64) int {
	return int(math.Ceil(x - 1e-9*math.Max(1, math.Abs(x))))
}

// stable reports whether a level reached a steady state that a plan may
// rest on: an open-loop level flagged unstable (a queue that grew for the
// whole level) does not; a closed-loop level is never flagged (its window
// says how steady it was, which report.Untrusted judges).
func stable(s report.LevelStats) bool { return !s.Unstable }

// group is every repeat of one level, as indices into the run's stats.
type group struct {
	key  sweep.LevelKey
	name string
	// said names the level in a sentence: an open-loop mode's Words.Load
	// with the rate its runs' plans offered ("18.2 req/s offered (nominal
	// 16)"), else the name.
	said string
	runs []int
}

// groups groups the levels by key, in the keys' order.
func groups(stats []report.LevelStats, levels []sweep.Level) []group {
	var gs []group
	for i := range stats {
		k := levels[i].Key()
		at := slices.IndexFunc(gs, func(g group) bool { return g.key == k })
		if at < 0 {
			gs = append(gs, group{key: k, name: k.Name()})
			at = len(gs) - 1
		}
		gs[at].runs = append(gs[at].runs, i)
	}
	slices.SortStableFunc(gs, func(a, b group) int { return a.key.Compare(b.key) })
	for i := range gs {
		var offered float64
		for _, r := range gs[i].runs {
			offered += stats[r].OfferedRPS / float64(len(gs[i].runs))
		}
		gs[i].said = gs[i].key.Said(offered)
	}
	return gs
}

// choose picks the level to plan on and sets p.Basis and p.Why.
func (p *Plan) choose(stats []report.LevelStats, levels []sweep.Level) (group, error) {
	gs := groups(stats, levels)
	if len(gs) == 0 {
		return group{}, errors.New("the run has no level to plan on")
	}
	if !judged(stats) {
		return p.chooseKnee(stats, gs)
	}
	p.Basis = BasisSLO
	var chosen *group
	var limit string
	for i := range gs {
		g := &gs[i]
		if why := failed(stats, g); why != "" {
			limit = fmt.Sprintf("%s failed the SLO: %s", g.said, why)
			break
		}
		if why := unfit(stats, g); why != "" {
			limit = fmt.Sprintf("%s cannot bear a verdict (%s), so the limit above it is not known", g.said, why)
			break
		}
		chosen = g
	}
	if chosen == nil {
		return group{}, fmt.Errorf("no tested level met the SLO (%s) to plan on: %s", cmp.Or(p.SLO, "as recorded"), limit)
	}
	if limit == "" {
		limit = "every level run passed, so the limit is above it and was not measured"
	}
	p.Why = fmt.Sprintf("%s is the largest tested level that met the SLO with every lower level passing; %s.", chosen.said, limit)
	return *chosen, nil
}

// chooseKnee is the choice without an SLO: the knee as report.Recommend
// finds it, among the levels that can bear a verdict.
func (p *Plan) chooseKnee(stats []report.LevelStats, gs []group) (group, error) {
	p.Basis = BasisKnee
	rec := report.Recommend(stats, report.SLO{})
	for _, g := range gs {
		if g.key.IsOpen() || stats[g.runs[0]].Concurrency != rec.Knee.Concurrency || unfit(stats, &g) != "" {
			continue
		}
		p.Why = fmt.Sprintf("the run has no SLO; %s is its knee: the next level at least twice as high adds less than %.0f%% throughput.", g.said, 100*report.KneeGain)
		return g, nil
	}
	return p.chooseBound(stats, gs)
}

// chooseBound is the choice with neither an SLO nor a knee: the highest
// level run, when it can bear a verdict. What a replica held there is a
// floor under its capacity, so the plan is a bound, not an extrapolation;
// a highest level that was unstable or failing bounds nothing.
func (p *Plan) chooseBound(stats []report.LevelStats, gs []group) (group, error) {
	top := gs[len(gs)-1]
	if unfit(stats, &top) != "" {
		return group{}, errors.New("the run has no SLO and no knee within its levels: nothing to plan on without extrapolating (re-run with --slo-* or higher levels)")
	}
	p.Basis = BasisBound
	p.Why = fmt.Sprintf("the run has no SLO and no knee within its levels; %s is the highest %s measured and ran stable: a replica holds at least that much, so every count below is a bound.", top.said, levelWord(top.key, false))
	return top, nil
}

// levelWord is what k's mode calls its levels, one or many: an open-loop
// mode's Words.Level or Levels ("rate", "rates"), else "level", "levels".
func levelWord(k sweep.LevelKey, many bool) string {
	w := k.Words()
	word, plain := w.Level, "level"
	if many {
		word, plain = w.Levels, "levels"
	}
	if !k.IsOpen() || word == "" {
		return plain
	}
	return word
}

// judged reports whether the run's levels carry SLO verdicts.
func judged(stats []report.LevelStats) bool {
	for _, s := range stats {
		if s.SLO != nil {
			return true
		}
	}
	return false
}

// failed is the failing criteria of the first repeat of g that failed the
// SLO (or has no verdict), "" when every repeat passed.
func failed(stats []report.LevelStats, g *group) string {
	for _, i := range g.runs {
		v := stats[i].SLO
		switch {
		case v == nil:
			return "no verdict recorded"
		case !v.Pass:
			// A failed verdict that names no criterion is still a failure.
			return cmp.Or(strings.Join(v.Failed, "; "), "failed (no criterion recorded)")
		}
	}
	return ""
}

// unfit says why a repeat of g cannot bear a verdict, "" when all can.
func unfit(stats []report.LevelStats, g *group) string {
	for _, i := range g.runs {
		if why := report.Untrusted(stats[i]); why != "" {
			return why
		}
		if !stable(stats[i]) {
			return "unstable"
		}
	}
	return ""
}

// pool gathers g's figures over its repeats.
func pool(levels []sweep.Level, stats []report.LevelStats, g group) Level {
	first := stats[g.runs[0]]
	l := Level{Key: g.name, Concurrency: first.Concurrency, Rate: g.key.Load, Open: g.key.IsOpen(), Repeats: len(g.runs), key: g.key}
	if !l.Open {
		l.Rate, l.Users = 0, float64(first.Concurrency)
	}
	var e2e time.Duration
	n := float64(len(g.runs))
	for _, i := range g.runs {
		s := stats[i]
		if l.Open {
			l.RequestsPerS += s.AchievedRPS / n
			l.OfferedRPS += s.OfferedRPS / n
			l.Users += s.InflightMean / n
		} else {
			l.RequestsPerS += s.RequestsPerS / n
		}
		l.OutputTPS += s.AggregateOutputTPS / n
		l.ClientLimited = l.ClientLimited || s.ClientLimited
		for r := range levels[i].All() {
			if r.Warmup || !r.OK() {
				continue
			}
			e2e += r.End - r.Start
			l.E2ERequests++
		}
	}
	if l.E2ERequests > 0 {
		l.MeanE2E = e2e / time.Duration(l.E2ERequests)
	}
	if g.key.RunsSessions() {
		l.Sessions = sessionLevel(stats, g.runs, first.Concurrency, l.RequestsPerS)
	}
	l.TokensPerJ = pooledTokensPerJ(stats, g.runs)
	return l
}
