package compare

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// Defaults of Options.
const (
	DefaultResamples  = 2000
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
	case o.Resamples < 100:
		return o, fmt.Errorf("compare: %d resamples: want at least 100", o.Resamples)
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
	// Compared lists the concurrencies both runs have, ascending;
	// OnlyBaseline and OnlyRun those that only one has.
	Compared, OnlyBaseline, OnlyRun []int
	// The same for open-loop levels (sweep --rates), keyed by offered rate.
	ComparedRates, OnlyBaselineRates, OnlyRunRates []float64
	Levels                                         []LevelComparison // one per compared level, closed loop first
}

// LevelComparison holds the estimates of one shared level.
type LevelComparison struct {
	Concurrency int
	Rate        float64    // open loop: the offered rate (Concurrency is its cap)
	Estimates   []Estimate // one per Metrics entry, in that order
}

// Level names the compared level in the tables: its C, or "rate=R/s".
func (l LevelComparison) Level() string { return levelKey{l.Concurrency, l.Rate}.String() }

// levelKey identifies a level across runs: C, or the offered rate and cap.
type levelKey struct {
	c    int
	rate float64
}

// key is the level's sweep key, its mode recovered from its settings.
func (k levelKey) key() sweep.LevelKey {
	return report.LevelStats{Concurrency: k.c, Rate: k.rate}.Key()
}

func (k levelKey) String() string {
	if key := k.key(); key.IsOpen() {
		return key.Name()
	}
	return strconv.Itoa(k.c)
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
		both, onlyA, onlyB := split(keys(pooled[0]), keys(pooled[i]))
		c.Compared, c.ComparedRates = byLoop(both)
		c.OnlyBaseline, c.OnlyBaselineRates = byLoop(onlyA)
		c.OnlyRun, c.OnlyRunRates = byLoop(onlyB)
		for _, k := range both {
			a, b := find(pooled[0], k), find(pooled[i], k)
			seed := [2]uint64{opts.Seed, uint64(i)<<32 | uint64(k.c) ^ math.Float64bits(k.rate)}
			c.Levels = append(c.Levels, compareLevel(a, b, seed, opts))
		}
		t.Comparisons = append(t.Comparisons, c)
	}
	return t, nil
}

// pool is every repetition of one concurrency level of a run: its
// successful measured requests pooled, and each repetition's own figures.
type pool struct {
	concurrency int
	rate        float64
	decode      []float64 // per-request decode tok/s, sorted
	ttft        []float64 // per-request TTFT in ms, sorted
	// repeats holds, per Metrics entry, the figure of each repetition that
	// has it (report.Summarize of that repetition alone).
	repeats [][]float64
}

// poolLevels groups levels by concurrency, in first-appearance order. Each
// sweep.Level is one repetition.
func poolLevels(levels []sweep.Level) []pool {
	var pools []pool
	for _, l := range levels {
		i := slices.IndexFunc(pools, func(p pool) bool { return p.concurrency == l.Concurrency && p.rate == l.Rate })
		if i < 0 {
			pools = append(pools, pool{concurrency: l.Concurrency, rate: l.Rate, repeats: make([][]float64, len(Metrics))})
			i = len(pools) - 1
		}
		p := &pools[i]
		for r := range l.All() {
			p.add(r)
		}
		s := report.Summarize(l)
		for k, m := range Metrics {
			if v := figure(s, m); v > 0 { // NaN and non-positive figures are undefined
				p.repeats[k] = append(p.repeats[k], v)
			}
		}
	}
	for i := range pools {
		slices.Sort(pools[i].decode)
		slices.Sort(pools[i].ttft)
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
		p.decode = append(p.decode, d)
	}
	if t := report.RequestTTFT(r); t != report.NoSample {
		p.ttft = append(p.ttft, float64(t)/1e6)
	}
}

// keys are the pools' level keys: closed-loop levels by C, then open-loop
// ones by rate.
func keys(pools []pool) []levelKey {
	ks := make([]levelKey, len(pools))
	for i, p := range pools {
		ks[i] = levelKey{p.concurrency, p.rate}
	}
	slices.SortFunc(ks, func(a, b levelKey) int { return cmp.Or(cmp.Compare(a.rate, b.rate), cmp.Compare(a.c, b.c)) })
	return ks
}

// byLoop splits keys into the closed loop's concurrencies and the open
// loop's rates.
func byLoop(ks []levelKey) (cs []int, rates []float64) {
	for _, k := range ks {
		if k.key().IsOpen() {
			rates = append(rates, k.rate)
		} else {
			cs = append(cs, k.c)
		}
	}
	return cs, rates
}

func find(pools []pool, k levelKey) *pool {
	i := slices.IndexFunc(pools, func(p pool) bool { return p.concurrency == k.c && p.rate == k.rate })
	return &pools[i]
}

// split returns the sorted sets a ∩ b, a − b and b − a.
func split(a, b []levelKey) (both, onlyA, onlyB []levelKey) {
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
