package trace

import (
	"math"
	"slices"

	"github.com/toksweep/toksweep/internal/pct"
)

// LengthError is how far a replay's lengths were from the trace's, over
// the requests it holds: the mean of the signed relative errors (achieved
// − trace) / trace, and the nearest-rank p99 of their magnitudes. N is the
// requests counted; with none, Mean and P99 are NaN.
type LengthError struct {
	N         int
	Mean, P99 float64
}

// LengthErrors computes a LengthError from pairs of (achieved, trace)
// lengths; pairs whose achieved length is unknown (≤ 0) are left out.
func LengthErrors(achieved, want []int) LengthError {
	var sum float64
	var abs []float64
	for i := range min(len(achieved), len(want)) {
		if achieved[i] <= 0 || want[i] <= 0 {
			continue
		}
		e := float64(achieved[i]-want[i]) / float64(want[i])
		sum += e
		abs = append(abs, math.Abs(e))
	}
	if len(abs) == 0 {
		return LengthError{Mean: math.NaN(), P99: math.NaN()}
	}
	slices.Sort(abs)
	return LengthError{N: len(abs), Mean: sum / float64(len(abs)), P99: pct.Percentile(abs, 99)}
}
