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
// to use. Memory: 24 bytes per bucket between the smallest and the largest
// magnitude added (about 1150 buckets per factor of ten).
type Hist struct {
	pos, neg buckets // values > 0; |values| < 0
	zero     float64 // weight of the values equal to 0
	total    float64
	lo, hi   float64 // smallest and largest value added
	n        int
}

// buckets is a dense run of buckets of magnitudes: bucket off+j has weight
// w[j] and holds magnitudes from lo[j] to hi[j].
type buckets struct {
	off       int
	w, lo, hi []float64
}

// index is the bucket of magnitude m > 0.
func index(m float64) int { return int(math.Ceil(math.Log(m) / logGamma)) }

// value is the reported value of bucket i.
func value(i int) float64 { return 2 * math.Pow(gamma, float64(i)) / (gamma + 1) }

// add adds magnitude m > 0 with weight w.
func (b *buckets) add(m, w float64) {
	i := index(m)
	switch {
	case len(b.w) == 0:
		b.off = i
		b.grow(0, 1)
	case i < b.off:
		b.grow(b.off-i, 0)
		b.off = i
	case i >= b.off+len(b.w):
		b.grow(0, i-b.off-len(b.w)+1)
	}
	j := i - b.off
	if b.w[j] == 0 {
		b.lo[j], b.hi[j] = m, m
	}
	b.w[j] += w
	b.lo[j], b.hi[j] = min(b.lo[j], m), max(b.hi[j], m)
}

// grow adds before empty buckets in front and after at the back.
func (b *buckets) grow(before, after int) {
	for _, s := range []*[]float64{&b.w, &b.lo, &b.hi} {
		grown := make([]float64, before+len(*s)+after)
		copy(grown[before:], *s)
		*s = grown
	}
}

// value is the reported value of bucket j: its value clamped to the
// magnitudes it holds.
func (b *buckets) value(j int) float64 {
	return min(max(value(b.off+j), b.lo[j]), b.hi[j])
}

// Add adds value v with weight w. A weight that is not positive, or a value
// that is NaN or infinite, is ignored.
func (h *Hist) Add(v, w float64) {
	if !(w > 0) || math.IsNaN(v) || math.IsInf(v, 0) || math.IsInf(w, 0) {
		return
	}
	switch {
	case v > 0:
		h.pos.add(v, w)
	case v < 0:
		h.neg.add(-v, w)
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

// Max is the largest value added, exact; NaN when empty.
func (h *Hist) Max() float64 {
	if h.n == 0 {
		return math.NaN()
	}
	return h.hi
}

// Percentile is the weighted nearest-rank p-th percentile, within RelErr:
// the value of the bucket in which the cumulative weight, ascending, first
// reaches p/100 of the total, clamped to the values that bucket holds. NaN
// when empty or p is outside (0, 100].
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
			return -h.neg.value(j)
		}
	}
	if reached(h.zero) {
		return 0
	}
	for j, w := range h.pos.w {
		if reached(w) {
			return h.pos.value(j)
		}
	}
	return h.hi
}
