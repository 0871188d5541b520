package fit

import (
	"math"
	"testing"
)

// y = 2 + 3·a − 1·b has a negative coefficient: the non-negative fit sets
// it to 0 and fits the rest, as worked out by hand below.
func TestNNLSKeepsCoefficientsNonNegative(t *testing.T) {
	var g gram
	// Four rows: (a, b) ∈ {0,1}², y = 2 + 3a − b.
	for _, r := range [][2]float64{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
		var x [nCols]float64
		x[colDecodeBase], x[colPerCtx], x[colPerSeq] = 1, r[0], r[1]
		g.addRow(x, 2+3*r[0]-r[1])
	}
	cols := []int{colDecodeBase, colPerCtx, colPerSeq}
	beta, ok := nnls(&g, cols)
	if !ok {
		t.Fatal("not solved")
	}
	// Without b: y on (1, a) over the four rows is 1.5 + 3a (b's −1 is
	// averaged into the intercept), and b's coefficient is 0.
	want := map[int]float64{colDecodeBase: 1.5, colPerCtx: 3, colPerSeq: 0}
	for c, w := range want {
		if math.Abs(beta[c]-w) > 1e-9 {
			t.Errorf("β[%d] = %v, want %v", c, beta[c], w)
		}
	}
	// b is not collinear with (1, a): centred, it keeps √½ of its norm.
	if r := g.residual(colPerSeq, []int{colDecodeBase, colPerCtx}); math.Abs(r-math.Sqrt(0.5)) > 1e-9 {
		t.Errorf("residual of b = %v, want √½", r)
	}
	if r := g.residual(colDecodeBase, []int{colDecodeBase}); r > 1e-9 {
		t.Errorf("a column's residual on itself = %v, want 0", r)
	}
}

func TestFmtNs(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		want string
	}{{0, "0"}, {12.34, "12.3ns"}, {999.6, "1.00µs"}, {999.4, "999ns"}, {1500, "1.50µs"}, {3.0e6, "3.00ms"}, {12.5e6, "12.5ms"}, {2.5e9, "2.50s"}, {0.5, "0.500ns"}} {
		if got := fmtNs(tt.v); got != tt.want {
			t.Errorf("fmtNs(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}
