package compare

import (
	"math"
	"math/rand/v2"

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

// Interval names what an estimate's confidence interval accounts for.
type Interval string

// The kinds of interval.
const (
	NoInterval Interval = ""
	// Requests is a block bootstrap over the requests of one run a side, in
	// start order. It sees request-to-request noise, including what
	// neighbouring requests share; run-to-run noise is not measured.
	Requests Interval = "requests"
	// Repeats is a t-interval over the figures of each side's repetitions
	// (--repeat), so it includes run-to-run noise.
	Repeats Interval = "repeats"
)

// Estimate is one figure of one level in the baseline A and in run B.
type Estimate struct {
	Metric Metric
	A, B   float64 // the figure in each run (TTFT in ms); NaN when undefined
	// NA and NB count the samples behind A and B: requests with the figure
	// defined, or repetitions for the aggregate.
	NA, NB int
	// RA and RB count the repetitions of the level that have the figure.
	RA, RB int
	Ratio  float64 // B / A; NaN when either is undefined or A is 0
	// Low and High bound the confidence interval of Ratio; both are NaN
	// when the figure has no interval (see the package doc).
	Low, High float64
	Interval  Interval // what the interval accounts for
	// MinEffect is the practical-significance floor (Options.MinEffect).
	MinEffect float64
}

// HasCI reports whether the estimate has a confidence interval.
func (e Estimate) HasCI() bool { return !math.IsNaN(e.Low) && !math.IsNaN(e.High) }

// Significant reports whether the interval of B/A excludes 1.
func (e Estimate) Significant() bool { return e.HasCI() && (e.Low > 1 || e.High < 1) }

// Meaningful reports whether the difference is significant and at least
// MinEffect in magnitude: only then does a verdict call B faster or slower.
// A figure from one run a side is never meaningful (Judged).
func (e Estimate) Meaningful() bool {
	return e.Judged() && e.Significant() && math.Abs(e.Ratio-1) >= e.MinEffect
}

// Judged reports whether the estimate can bear a verdict at all: only an
// interval between repetitions on both sides does. A bootstrap over the
// requests of one run a side ignores the run-to-run variation, and the
// requests of one level are not independent either (they share batches
// and moments of machine load), so its interval understates the noise:
// two identical simulator runs beside a loaded machine differed by 3.6%
// with a within-run interval of 3.1–22.2%. It is shown, never judged.
func (e Estimate) Judged() bool { return e.Interval != Requests }

// compareLevel estimates every figure of one shared level. A figure gets an
// interval between runs when both sides have MinRepeats repetitions with
// it; otherwise the medians get a block bootstrap over requests.
func compareLevel(a, b *pool, seed [2]uint64, o Options) LevelComparison {
	l := LevelComparison{Key: a.key}
	for i, m := range Metrics {
		var e Estimate
		switch m {
		case DecodeP50:
			e = percentileEstimate(a.decode, b.decode, 50)
		case TTFTP50:
			e = percentileEstimate(a.ttft, b.ttft, 50)
		case TTFTP95:
			e = percentileEstimate(a.ttft, b.ttft, 95)
		case AggregateOutput:
			ra, rb := a.repeats[i], b.repeats[i]
			e = newEstimate(report.Mean(ra), report.Mean(rb), len(ra), len(rb))
		}
		e.Metric, e.MinEffect = m, o.MinEffect
		e.RA, e.RB = len(a.repeats[i]), len(b.repeats[i])
		e.setInterval(a, b, i, seed, o)
		l.Estimates = append(l.Estimates, e)
	}
	return l
}

// setInterval gives e, the i-th of Metrics, its interval: between runs
// when both sides have MinRepeats repetitions with the figure, else a
// block bootstrap over requests in start order for the medians, else none.
func (e *Estimate) setInterval(a, b *pool, i int, seed [2]uint64, o Options) {
	switch {
	case math.IsNaN(e.Ratio) || e.Ratio <= 0:
	case e.RA >= MinRepeats && e.RB >= MinRepeats:
		e.Low, e.High = betweenRuns(e.Ratio, a.repeats[i], b.repeats[i], o.Confidence)
		e.Interval = Repeats
	case e.Metric == DecodeP50 && e.NA >= MinSamples && e.NB >= MinSamples:
		e.Low, e.High = blockBootstrapRatio(resampler(seed, i), a.side(a.decodeSeq), b.side(b.decodeSeq), 50, o.Resamples, o.Confidence, e.Ratio)
		e.Interval = Requests
	case e.Metric == TTFTP50 && e.NA >= MinSamples && e.NB >= MinSamples:
		e.Low, e.High = blockBootstrapRatio(resampler(seed, i), a.side(a.ttftSeq), b.side(b.ttftSeq), 50, o.Resamples, o.Confidence, e.Ratio)
		e.Interval = Requests
	}
	if !e.HasCI() {
		e.Interval = NoInterval
	}
}

// resampler seeds the bootstrap of the i-th figure of a level.
func resampler(seed [2]uint64, i int) *rand.Rand {
	return rand.New(rand.NewPCG(seed[0], seed[1]<<8|uint64(i)))
}

func newEstimate(a, b float64, na, nb int) Estimate {
	ratio := math.NaN()
	if a != 0 {
		ratio = b / a // NaN when either is NaN
	}
	return Estimate{A: a, B: b, NA: na, NB: nb, Ratio: ratio, Low: math.NaN(), High: math.NaN()}
}

// percentileEstimate compares the p-th percentiles of two sorted samples.
func percentileEstimate(a, b []float64, p float64) Estimate {
	return newEstimate(report.Percentile(a, p), report.Percentile(b, p), len(a), len(b))
}

// betweenRuns is the interval of ratio from the spread between repetitions:
// on the log scale, ratio × exp(±t·se), where se² = s²_A/k_A + s²_B/k_B
// over the logs of each side's per-repetition figures (positive, at least
// two a side), and t is Student's quantile with Welch–Satterthwaite degrees
// of freedom. It is centred on the pooled ratio, the figure the output
// shows; its width is what the repetitions disagree by.
func betweenRuns(ratio float64, a, b []float64, conf float64) (lo, hi float64) {
	va, vb := logVariance(a)/float64(len(a)), logVariance(b)/float64(len(b))
	se2 := va + vb
	if se2 == 0 {
		return ratio, ratio
	}
	df := se2 * se2 / (va*va/float64(len(a)-1) + vb*vb/float64(len(b)-1))
	half := studentT((1-conf)/2, df) * math.Sqrt(se2)
	return ratio * math.Exp(-half), ratio * math.Exp(half)
}

// logVariance is the sample variance (n − 1) of the logs of xs.
func logVariance(xs []float64) float64 {
	logs := make([]float64, len(xs))
	for i, x := range xs {
		logs[i] = math.Log(x)
	}
	m := report.Mean(logs)
	ss := 0.0
	for _, x := range logs {
		ss += (x - m) * (x - m)
	}
	return ss / float64(len(xs)-1)
}
