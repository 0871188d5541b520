package compare

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/toksweep/toksweep/report"
)

// Metric names a compared figure; the names are the levels.csv columns.
type Metric string

// The compared figures.
const (
	DecodeP50       Metric = "decode_tps_p50"       // per-stream decode tok/s, median over requests
	TTFTP50         Metric = "ttft_p50_ms"          // TTFT median, ms
	TTFTP95         Metric = "ttft_p95_ms"          // TTFT p95, ms
	AggregateOutput Metric = "aggregate_output_tps" // aggregate output tok/s over the window
)

// Metrics lists the compared figures in output order.
var Metrics = []Metric{DecodeP50, TTFTP50, TTFTP95, AggregateOutput}

// higherIsBetter tells the direction of each figure, for verdicts.
func (m Metric) higherIsBetter() bool { return m == DecodeP50 || m == AggregateOutput }

// Estimate is one figure of one level in the baseline A and in run B.
type Estimate struct {
	Metric Metric
	A, B   float64 // the figure in each run (TTFT in ms); NaN when undefined
	// NA and NB count the samples behind A and B: requests with the figure
	// defined, or repetitions for the aggregate.
	NA, NB int
	Ratio  float64 // B / A; NaN when either is undefined or A is 0
	// Low and High bound the confidence interval of Ratio; both are NaN
	// when the figure has no interval (see the package doc).
	Low, High float64
}

// HasCI reports whether the estimate has a confidence interval.
func (e Estimate) HasCI() bool { return !math.IsNaN(e.Low) && !math.IsNaN(e.High) }

// Significant reports whether the interval of B/A excludes 1.
func (e Estimate) Significant() bool { return e.HasCI() && (e.Low > 1 || e.High < 1) }

// compareLevel estimates every figure of one shared level.
func compareLevel(a, b *pool, seed [2]uint64, o Options) LevelComparison {
	l := LevelComparison{Concurrency: a.concurrency}
	for i, m := range Metrics {
		var e Estimate
		switch m {
		case DecodeP50:
			e = percentileEstimate(a.decode, b.decode, 50, true, o, seed, i)
		case TTFTP50:
			e = percentileEstimate(a.ttft, b.ttft, 50, true, o, seed, i)
		case TTFTP95:
			e = percentileEstimate(a.ttft, b.ttft, 95, false, o, seed, i)
		case AggregateOutput:
			e = newEstimate(report.Mean(a.aggregate), report.Mean(b.aggregate), len(a.aggregate), len(b.aggregate))
		}
		e.Metric = m
		l.Estimates = append(l.Estimates, e)
	}
	return l
}

func newEstimate(a, b float64, na, nb int) Estimate {
	ratio := math.NaN()
	if a != 0 {
		ratio = b / a // NaN when either is NaN
	}
	return Estimate{A: a, B: b, NA: na, NB: nb, Ratio: ratio, Low: math.NaN(), High: math.NaN()}
}

// percentileEstimate compares the p-th percentiles of two sorted samples,
// with a bootstrap interval when withCI and both samples are big enough.
func percentileEstimate(a, b []float64, p float64, withCI bool, o Options, seed [2]uint64, metric int) Estimate {
	e := newEstimate(report.Percentile(a, p), report.Percentile(b, p), len(a), len(b))
	if !withCI || len(a) < MinSamples || len(b) < MinSamples || math.IsNaN(e.Ratio) {
		return e
	}
	rng := rand.New(rand.NewPCG(seed[0], seed[1]<<8|uint64(metric)))
	e.Low, e.High = bootstrapRatio(rng, a, b, p, o.Resamples, o.Confidence)
	return e
}

// bootstrapRatio returns the percentile interval, at confidence conf, of
// P_p(b*) / P_p(a*) over n resamples a* of a and b* of b (each drawn with
// replacement, of the original size). a and b are sorted ascending.
func bootstrapRatio(rng *rand.Rand, a, b []float64, p float64, n int, conf float64) (lo, hi float64) {
	countsA, countsB := make([]int, len(a)), make([]int, len(b))
	ratios := make([]float64, 0, n)
	for range n {
		ra := resampledPercentile(rng, a, countsA, p)
		rb := resampledPercentile(rng, b, countsB, p)
		if ra != 0 {
			ratios = append(ratios, rb/ra)
		}
	}
	if len(ratios) == 0 {
		return math.NaN(), math.NaN()
	}
	slices.Sort(ratios)
	// Round the tail to a clean percentage: (1 − 0.95)/2 is 2.5000000000000027
	// in floating point, which would move the nearest rank by one.
	tail := math.Round(50*(1-conf)*1e9) / 1e9
	return report.Percentile(ratios, tail), report.Percentile(ratios, 100-tail)
}

// resampledPercentile draws len(sorted) indices with replacement and returns
// the nearest-rank p-th percentile of the values they pick. Counting the
// draws per index keeps the resample sorted for free: O(n), no sort.
func resampledPercentile(rng *rand.Rand, sorted []float64, counts []int, p float64) float64 {
	n := len(sorted)
	clear(counts)
	for range n {
		counts[rng.IntN(n)]++
	}
	k := max(1, int(math.Ceil(p*float64(n)/100)))
	cum := 0
	for i, c := range counts {
		cum += c
		if cum >= k {
			return sorted[i]
		}
	}
	return sorted[n-1]
}
