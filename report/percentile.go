package report

import "github.com/toksweep/toksweep/internal/pct"

// Percentile is pct.Percentile, the nearest-rank method every figure uses.
func Percentile(sorted []float64, p float64) float64 { return pct.Percentile(sorted, p) }

// WeightedValue is one sample with a weight, for WeightedPercentile.
type WeightedValue = pct.Weighted

// WeightedPercentile is pct.WeightedPercentile, the weighted nearest rank
// of the pooled ITL.
func WeightedPercentile(sorted []WeightedValue, p float64) float64 {
	return pct.WeightedPercentile(sorted, p)
}
