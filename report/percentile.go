package report

import "github.com/toksweep/toksweep/internal/pct"

// Percentile is pct.Percentile, the nearest-rank method every figure uses.
func Percentile(sorted []float64, p float64) float64 { return pct.Percentile(sorted, p) }
