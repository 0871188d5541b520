package compare

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// Defaults of Options.
const (
	DefaultResamples = 2000
	// MaxResamples bounds Options.Resamples: each resample redraws every
	// request of a level, and 1e9 of them took 6 GB and over 10 minutes.
	MaxResamples      = 100_000
	DefaultConfidence = 0.95
	// MinSamples is the fewest requests a side needs for an interval.
	MinSamples = 5
	// MinRepeats is the fewest repetitions of a level each side needs for
	// an interval between runs.
	MinRepeats = 2
	// DefaultMinEffect is the command's practical-significance floor: a
	// relative difference under 2% is "no meaningful difference".
	DefaultMinEffect = 0.02
)

// Run is one saved run as Compare reads it.
type Run struct {
	Name   string        // how the output names the run, e.g. its directory
	Levels []sweep.Level // raw levels, warm-up records included (they are skipped)
}

// Options tunes the intervals and verdicts.
type Options struct {
	Resamples  int     // resamples per interval; 0 means DefaultResamples
	Confidence float64 // in (0, 1); 0 means DefaultConfidence
	Seed       uint64  // seeds every resampling
	// MinEffect is the practical-significance floor, a fraction: a
	// significant difference B/A − 1 smaller than it in magnitude is "no
	// meaningful difference". 0 means no floor; the command's default is
	// DefaultMinEffect.
	MinEffect float64
}

func (o Options) withDefaults() (Options, error) {
	if o.Resamples == 0 {
		o.Resamples = DefaultResamples
	}
	if o.Confidence == 0 {
		o.Confidence = DefaultConfidence
	}
	switch {
	case o.Resamples < 100 || o.Resamples > MaxResamples:
		return o, fmt.Errorf("compare: %d resamples: want 100 to %d", o.Resamples, MaxResamples)
	case !(o.Confidence > 0 && o.Confidence < 1):
		return o, fmt.Errorf("compare: confidence %v: want a fraction in (0, 1)", o.Confidence)
	case !(o.MinEffect >= 0 && o.MinEffect < 1):
		return o, fmt.Errorf("compare: minimum effect %v: want a fraction in [0, 1)", o.MinEffect)
	}
	return o, nil
}

// Table is the outcome of Compare.
type Table struct {
	Runs        []string     // run names; Runs[0] is the baseline A
	Comparisons []Comparison // Runs[i] against Runs[0], for i ≥ 1
	Resamples   int
	Confidence  float64
	MinEffect   float64
}

// Comparison is one run B against the baseline A.
type Comparison struct {
	Baseline, Run string // names of A and B
	Label         string // B's letter: "B", "C", …; the baseline is "A"
	// Compared lists the level keys both runs have, in the keys' order
	// (sweep.LevelKey.Compare); OnlyBaseline and OnlyRun those that only
	// one has. A level pairs only with one of the same key, so levels of
	// different modes never pair: a sessions run's C=2 is not a closed
	// loop's, a replay's speed 2 not a rate of 2 req/s.
	Compared, OnlyBaseline, OnlyRun []sweep.LevelKey
	Levels                          []LevelComparison // one per compared level, in Compared's order
}

// LevelComparison holds the estimates of one shared level.
type LevelComparison struct {
	Key       sweep.LevelKey
	Estimates []Estimate // one per Metrics entry, in that order
}

// Estimate returns the estimate of metric m.
func (l LevelComparison) Estimate(m Metric) Estimate {
	for _, e := range l.Estimates {
		if e.Metric == m {
			return e
		}
	}
	return Estimate{Metric: m, A: math.NaN(), B: math.NaN(), Ratio: math.NaN(), Low: math.NaN(), High: math.NaN()}
}

// Label is the letter naming run i in the output: A for the baseline, then
// B, C, …, Z, then R27, R28, ….
func Label(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return fmt.Sprintf("R%d", i+1)
}

// Compare compares runs[1:] with runs[0] on the levels each shares with it.
func Compare(runs []Run, opts Options) (Table, error) {
	if len(runs) < 2 {
		return Table{}, errors.New("compare: need at least two runs")
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return Table{}, err
	}
	t := Table{Resamples: opts.Resamples, Confidence: opts.Confidence, MinEffect: opts.MinEffect}
	pooled := make([][]pool, len(runs))
	for i, r := range runs {
		t.Runs = append(t.Runs, r.Name)
		pooled[i] = poolLevels(r.Levels)
	}
	for i := 1; i < len(runs); i++ {
		c := Comparison{Baseline: runs[0].Name, Run: runs[i].Name, Label: Label(i)}
		c.Compared, c.OnlyBaseline, c.OnlyRun = split(keys(pooled[0]), keys(pooled[i]))
		for _, k := range c.Compared {
			a, b := find(pooled[0], k), find(pooled[i], k)
			seed := [2]uint64{opts.Seed, uint64(i)<<32 | uint64(k.Concurrency) ^ math.Float64bits(k.Load)}
			c.Levels = append(c.Levels, compareLevel(a, b, seed, opts))
		}
		t.Comparisons = append(t.Comparisons, c)
	}
	return t, nil
}

// pool is every repetition of one level of a run (one key): its
// successful measured requests pooled, and each repetition's own figures.
type pool struct {
	key    sweep.LevelKey
	decode []float64 // per-request decode tok/s, sorted
	ttft   []float64 // per-request TTFT in ms, sorted
	// decodeSeq and ttftSeq hold the same figures in start order, each
	// repetition's after the previous one's, for the block bootstrap.
	decodeSeq, ttftSeq []float64
	// repeats holds, per Metrics entry, the figure of each repetition that
	// has it (report.Summarize of that repetition alone).
	repeats [][]float64
}

// poolLevels groups levels by key (sweep.Level.Key: its mode, else the
// mode its records show), in first-appearance order. Each sweep.Level is
// one repetition.
func poolLevels(levels []sweep.Level) []pool {
	var pools []pool
	for _, l := range levels {
		k := l.Key()
		i := slices.IndexFunc(pools, func(p pool) bool { return p.key == k })
		if i < 0 {
			pools = append(pools, pool{key: k, repeats: make([][]float64, len(Metrics))})
			i = len(pools) - 1
		}
		p := &pools[i]
		rs := slices.Collect(l.All())
		slices.SortStableFunc(rs, func(x, y *client.Record) int { return cmp.Compare(x.Start, y.Start) })
		for _, r := range rs {
			p.add(r)
		}
		s := report.Summarize(l, report.Settings{}) // no figure compared depends on the settings
		for k, m := range Metrics {
			if v := figure(s, m); v > 0 { // NaN and non-positive figures are undefined
				p.repeats[k] = append(p.repeats[k], v)
			}
		}
	}
	for i := range pools {
		pools[i].decode = slices.Sorted(slices.Values(pools[i].decodeSeq))
		pools[i].ttft = slices.Sorted(slices.Values(pools[i].ttftSeq))
	}
	return pools
}

// figure is metric m of one repetition's summary (TTFT in ms), NaN when
// undefined.
func figure(s report.LevelStats, m Metric) float64 {
	ms := func(d time.Duration) float64 {
		if d == report.NoSample {
			return math.NaN()
		}
		return float64(d) / 1e6
	}
	switch m {
	case DecodeP50:
		return s.DecodeTPSP50
	case TTFTP50:
		return ms(s.TTFTP50)
	case TTFTP95:
		return ms(s.TTFTP95)
	case AggregateOutput:
		return s.AggregateOutputTPS
	}
	return math.NaN()
}

// add takes r's figures when it is a successful measured request, as
// report.Summarize does.
func (p *pool) add(r *client.Record) {
	if r.Warmup || !r.OK() {
		return
	}
	if d := report.RequestDecodeTPS(r); !math.IsNaN(d) {
		p.decodeSeq = append(p.decodeSeq, d)
	}
	if t := report.RequestTTFT(r); t != report.NoSample {
		p.ttftSeq = append(p.ttftSeq, float64(t)/1e6)
	}
}

// keys are the pools' level keys, in the keys' order.
func keys(pools []pool) []sweep.LevelKey {
	ks := make([]sweep.LevelKey, len(pools))
	for i, p := range pools {
		ks[i] = p.key
	}
	slices.SortFunc(ks, sweep.LevelKey.Compare)
	return ks
}

// side is seq, one of p's figures in start order, with its block length.
func (p *pool) side(seq []float64) side {
	return side{seq: seq, bl: blockLength(len(seq), p.key.Concurrency)}
}

func find(pools []pool, k sweep.LevelKey) *pool {
	i := slices.IndexFunc(pools, func(p pool) bool { return p.key == k })
	return &pools[i]
}

// split returns the sorted sets a ∩ b, a − b and b − a.
func split(a, b []sweep.LevelKey) (both, onlyA, onlyB []sweep.LevelKey) {
	for _, x := range a {
		if slices.Contains(b, x) {
			both = append(both, x)
		} else {
			onlyA = append(onlyA, x)
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			onlyB = append(onlyB, x)
		}
	}
	return both, onlyA, onlyB
}
