package compare

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/toksweep/toksweep/report"
)

// blockLength is the block bootstrap's block length for n requests of a
// level of concurrency c (docs/metrics.md): ⌈n^(1/3)⌉, the usual rate for
// a variance, raised to c, since c consecutive requests share batches and
// moments of machine load, and capped at n/5 so that a resample has at
// least five blocks to draw from.
func blockLength(n, c int) int {
	b := max(int(math.Ceil(math.Cbrt(float64(n)))), c)
	return max(1, min(b, n/5))
}

// hdWeights are the Harrell–Davis weights of the p-quantile (p in (0, 1))
// of a sorted sample of n: w_i = I_{i/n}(a, b) − I_{(i−1)/n}(a, b) with
// a = p(n+1), b = (1−p)(n+1). They sum to 1.
func hdWeights(n int, p float64) []float64 {
	a, b := p*float64(n+1), (1-p)*float64(n+1)
	w := make([]float64, n)
	prev := 0.0
	for i := range n {
		cur := regIncBeta(float64(i+1)/float64(n), a, b)
		w[i], prev = cur-prev, cur
	}
	return w
}

// weighted is Σ w_i·sorted_i: the Harrell–Davis quantile with w from
// hdWeights.
func weighted(sorted, w []float64) float64 {
	s := 0.0
	for i, x := range sorted {
		s += w[i] * x
	}
	return s
}

// blockResample fills out with len(seq) values of seq drawn as whole
// blocks of bl consecutive values (a circular block bootstrap: each block
// starts anywhere and wraps from the end of seq to its start, so that
// every value is as likely to be drawn; the last block is cut to fit),
// then sorts out.
func blockResample(rng *rand.Rand, seq []float64, bl int, out []float64) {
	n := len(seq)
	for i := 0; i < n; {
		s := rng.IntN(n)
		for j := 0; j < bl && i < n; j++ {
			out[i] = seq[(s+j)%n]
			i++
		}
	}
	slices.Sort(out)
}

// side is one run's requests for the block bootstrap: the figure of each
// successful measured request in start order, and its block length.
type side struct {
	seq []float64
	bl  int
}

// blockBootstrapRatio is the interval of ratio (the shown B/A of p-th
// percentiles) from a moving block bootstrap of each side's requests in
// start order. The statistic resampled is the Harrell–Davis p-quantile,
// a smooth weighted mean of all order statistics, so its resamples spread
// continuously instead of piling on a few sample values as a nearest-rank
// median's do. The interval is ratio × the conf percentile interval of
// HD(b*)/HD(a*) ÷ HD(b)/HD(a), the relative spread of the smooth
// statistic around its own estimate; a bound on the wrong side of the
// estimate (a degenerate sample) is the estimate itself, so the interval
// always contains its estimate.
func blockBootstrapRatio(rng *rand.Rand, a, b side, p float64, n int, conf, ratio float64) (lo, hi float64) {
	wa, wb := hdWeights(len(a.seq), p/100), hdWeights(len(b.seq), p/100)
	ha := weighted(slices.Sorted(slices.Values(a.seq)), wa)
	hb := weighted(slices.Sorted(slices.Values(b.seq)), wb)
	if !(ha > 0 && hb > 0) {
		return math.NaN(), math.NaN()
	}
	centre := math.Log(hb / ha)
	bufA, bufB := make([]float64, len(a.seq)), make([]float64, len(b.seq))
	logs := make([]float64, 0, n)
	for range n {
		blockResample(rng, a.seq, a.bl, bufA)
		blockResample(rng, b.seq, b.bl, bufB)
		if ra, rb := weighted(bufA, wa), weighted(bufB, wb); ra > 0 && rb > 0 {
			logs = append(logs, math.Log(rb/ra)-centre)
		}
	}
	if len(logs) == 0 {
		return math.NaN(), math.NaN()
	}
	slices.Sort(logs)
	// Round the tail to a clean percentage: (1 − 0.95)/2 is 2.5000000000000027
	// in floating point, which would move the nearest rank by one.
	tail := math.Round(50*(1-conf)*1e9) / 1e9
	qlo, qhi := report.Percentile(logs, tail), report.Percentile(logs, 100-tail)
	return ratio * math.Exp(min(qlo, 0)), ratio * math.Exp(max(qhi, 0))
}
