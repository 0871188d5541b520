package pct

import "math"

// Rank is the 1-based nearest rank of the p-th percentile of n sorted
// samples: k = ceil(p/100 × n), k ≥ 1. It returns 0 when n is 0 or p is
// outside (0, 100]. Use it to index a sorted slice of any type:
// sorted[Rank(len(sorted), p)-1].
func Rank(n int, p float64) int {
	if n <= 0 || !(p > 0 && p <= 100) {
		return 0
	}
	// p×n is exact for the usual integer p and n; dividing last keeps
	// ceil(95×100/100) at 95 rather than 96.
	k := int(math.Ceil(p * float64(n) / 100))
	return min(max(k, 1), n)
}

// Percentile returns the p-th percentile of sorted (ascending) by the
// nearest-rank method: x_k with k = Rank(n, p). The result is always one of
// the samples, so p99 of fewer than 100 samples is the max and p100 is the
// max. It returns NaN when sorted is empty or p is outside (0, 100].
func Percentile(sorted []float64, p float64) float64 {
	k := Rank(len(sorted), p)
	if k == 0 {
		return math.NaN()
	}
	return sorted[k-1]
}

// Weighted is one sample with a weight, for WeightedPercentile.
type Weighted struct {
	Value  float64
	Weight float64 // ≥ 0; a zero-weight sample is never selected
}

// WeightedPercentile is the weighted nearest rank: the smallest Value of
// sorted (ascending by Value) whose cumulative weight reaches p/100 of the
// total weight. With every weight 1 it equals Percentile. It returns NaN when
// the total weight is not positive or p is outside (0, 100].
func WeightedPercentile(sorted []Weighted, p float64) float64 {
	if !(p > 0 && p <= 100) {
		return math.NaN()
	}
	var total float64
	for _, s := range sorted {
		total += s.Weight
	}
	if !(total > 0) {
		return math.NaN()
	}
	target := p * total / 100
	// Fractional weights (U/K) make the running sum inexact, so a cumulative
	// weight that equals the target on paper may fall short by an ulp.
	slack := total * 1e-12
	last := math.NaN()
	var cum float64
	for _, s := range sorted {
		if s.Weight <= 0 {
			continue
		}
		cum += s.Weight
		last = s.Value
		if cum >= target-slack {
			return s.Value
		}
	}
	return last
}
