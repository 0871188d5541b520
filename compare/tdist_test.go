package compare

import (
	"math"
	"testing"
)

// TestStudentT checks the quantiles against published two-sided 95% and
// 99% tables, the closed forms for 1 and 2 degrees of freedom, and the
// normal limit.
func TestStudentT(t *testing.T) {
	tests := []struct {
		tail, df, want float64
	}{
		{0.025, 1, 12.7062047},
		{0.025, 2, 4.30265273},
		{0.025, 3, 3.18244631},
		{0.025, 5, 2.57058184},
		{0.025, 10, 2.22813885},
		{0.025, 30, 2.04227246},
		{0.005, 4, 4.60409487},
		{0.05, 7, 1.89457861},
		{0.025, 1e7, 1.95996398},
		// df = 1 is Cauchy: tan(π(1/2 − tail)); df = 2: (1−2p)/√(2p(1−p)).
		{0.1, 1, math.Tan(math.Pi * 0.4)},
		{0.001, 1, math.Tan(math.Pi * 0.499)},
		{0.2, 2, 0.6 / math.Sqrt(2*0.2*0.8)},
	}
	for _, tt := range tests {
		if got := studentT(tt.tail, tt.df); math.Abs(got-tt.want) > 1e-6*tt.want {
			t.Errorf("studentT(%v, %v) = %.8f, want %.8f", tt.tail, tt.df, got, tt.want)
		}
	}
	// Non-integer degrees of freedom lie between their neighbours.
	if a, b, c := studentT(0.025, 2), studentT(0.025, 2.5), studentT(0.025, 3); !(a > b && b > c) {
		t.Errorf("t(2) %v, t(2.5) %v, t(3) %v: not decreasing", a, b, c)
	}
	for _, bad := range [][2]float64{{0, 3}, {0.5, 3}, {0.025, 0}, {math.NaN(), 2}} {
		if got := studentT(bad[0], bad[1]); !math.IsNaN(got) {
			t.Errorf("studentT(%v, %v) = %v, want NaN", bad[0], bad[1], got)
		}
	}
}
