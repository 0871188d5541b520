// Package hist is a log-bucketed histogram of weighted values, for the
// figures pooled over every token chunk of a level (ITL, client delay):
// its size depends on the spread of the values, never on their number.
//
// Bucket i holds the values v with γ^(i−1) < v ≤ γ^i, γ = (1+α)/(1−α), and
// reports 2γ^i/(γ+1), which is within a relative error α of every value in
// the bucket (the HdrHistogram and DDSketch idea). Zero and negative values
// have buckets of their own, mirrored for the negatives. Percentiles are the
// weighted nearest rank of pct.WeightedPercentile, answered with the
// reported value of the bucket that holds that rank, clamped to the
// smallest and largest value added: so they are within RelErr of the exact
// weighted nearest rank, and exact when every value is the same.
package hist

import "math"

// RelErr bounds the relative error of a percentile: |got − exact| ≤
// RelErr × |exact|.
const RelErr = 0.001

// alpha is the bucket half-width, a hair under RelErr so that rounding in
// the logarithm never takes a value past the bound.
const alpha = RelErr * 0.999

var (
	gamma    = (1 + alpha) / (1 - alpha)
	logGamma = math.Log(gamma)
)

// Hist is a histogram of weighted values. The zero value is empty and ready
// to use. Memory: 8 bytes per bucket between the smallest and the largest
// magnitude added (about 1150 buckets per factor of ten).
type Hist struct {
	pos, neg buckets // values > 0; |values| < 0
	zero     float64 // weight of the values equal to 0
	total    float64
	lo, hi   float64 // smallest and largest value added
	n        int
}

// buckets is a dense run of bucket weights: w[j] is bucket off+j.
type buckets struct {
	off int
	w   []float64
}

// index is the bucket of magnitude m > 0.
func index(m float64) int { return int(math.Ceil(math.Log(m) / logGamma)) }

// value is the reported value of bucket i.
func value(i int) float64 { return 2 * math.Pow(gamma, float64(i)) / (gamma + 1) }

func (b *buckets) add(i int, w float64) {
	switch {
	case len(b.w) == 0:
		b.off, b.w = i, []float64{0}
	case i < b.off:
		grown := make([]float64, len(b.w)+b.off-i)
		copy(grown[b.off-i:], b.w)
		b.off, b.w = i, grown
	case i >= b.off+len(b.w):
		b.w = append(b.w, make([]float64, i-b.off-len(b.w)+1)...)
	}
	b.w[i-b.off] += w
}

// Add adds value v with weight w. A weight that is not positive, or a value
// that is NaN or infinite, is ignored.
func (h *Hist) Add(v, w float64) {
	if !(w > 0) || math.IsNaN(v) || math.IsInf(v, 0) || math.IsInf(w, 0) {
		return
	}
	switch {
	case v > 0:
		h.pos.add(index(v), w)
	case v < 0:
		h.neg.add(index(-v), w)
	default:
		h.zero += w
	}
	if h.n == 0 || v < h.lo {
		h.lo = v
	}
	if h.n == 0 || v > h.hi {
		h.hi = v
	}
	h.n++
	h.total += w
}

// Count is the number of values added.
func (h *Hist) Count() int { return h.n }

// Max is the largest value added, exact; NaN when empty.
func (h *Hist) Max() float64 {
	if h.n == 0 {
		return math.NaN()
	}
	return h.hi
}

// Percentile is the weighted nearest-rank p-th percentile, within RelErr:
// the value of the bucket in which the cumulative weight, ascending, first
// reaches p/100 of the total. NaN when empty or p is outside (0, 100].
func (h *Hist) Percentile(p float64) float64 {
	if h.n == 0 || !(p > 0 && p <= 100) {
		return math.NaN()
	}
	target := p * h.total / 100
	// As in pct.WeightedPercentile: a running sum of fractional weights
	// may fall an ulp short of a target it reaches on paper.
	target -= h.total * 1e-12
	var cum float64
	reached := func(w float64) bool { cum += w; return w > 0 && cum >= target }
	for j := len(h.neg.w) - 1; j >= 0; j-- { // the most negative first
		if reached(h.neg.w[j]) {
			return h.clamp(-value(h.neg.off + j))
		}
	}
	if reached(h.zero) {
		return 0
	}
	for j, w := range h.pos.w {
		if reached(w) {
			return h.clamp(value(h.pos.off + j))
		}
	}
	return h.hi
}

// clamp keeps v within the values added: a bucket's reported value may lie
// past the one value it holds.
func (h *Hist) clamp(v float64) float64 { return min(max(v, h.lo), h.hi) }
