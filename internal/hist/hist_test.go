package hist

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/toksweep/toksweep/internal/pct"
)

// exact is the weighted nearest rank of vs, the figure Hist approximates.
func exact(vs []pct.Weighted, p float64) float64 {
	s := slices.Clone(vs)
	slices.SortFunc(s, func(a, b pct.Weighted) int { return cmp.Compare(a.Value, b.Value) })
	return pct.WeightedPercentile(s, p)
}

var ps = []float64{0.1, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 100}

func checkBound(t *testing.T, name string, vs []pct.Weighted) {
	t.Helper()
	var h Hist
	for _, v := range vs {
		h.Add(v.Value, v.Weight)
	}
	for _, p := range ps {
		want, got := exact(vs, p), h.Percentile(p)
		if math.Abs(got-want) > RelErr*math.Abs(want) {
			t.Errorf("%s p%g = %v, exact %v: relative error %.3g > %g", name, p, got, want, math.Abs(got-want)/math.Abs(want), RelErr)
		}
	}
}

// The bound holds on values spread over many orders of magnitude, with
// integer and fractional weights, and with negative and zero values mixed in.
func TestPercentileWithinRelErr(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 50 {
		n := 1 + rng.IntN(5000)
		vs := make([]pct.Weighted, n)
		for i := range vs {
			v := math.Exp(rng.Float64()*30 - 5) // 0.007 to 7e10, as ns
			switch rng.IntN(20) {
			case 0:
				v = 0
			case 1:
				v = -v
			}
			w := 1.0
			if trial%2 == 1 {
				w = float64(1+rng.IntN(7)) / float64(1+rng.IntN(3)) // U/K
			}
			vs[i] = pct.Weighted{Value: v, Weight: w}
		}
		checkBound(t, "random", vs)
	}
}

// Values at and next to bucket edges, where the logarithm's rounding could
// place a value in the neighbouring bucket.
func TestPercentileAtBucketEdges(t *testing.T) {
	var vs []pct.Weighted
	for i := -50; i < 20000; i += 7 {
		e := math.Pow(gamma, float64(i))
		for _, v := range []float64{e, math.Nextafter(e, 0), math.Nextafter(e, math.Inf(1))} {
			vs = append(vs, pct.Weighted{Value: v, Weight: 1})
		}
	}
	for lo := 0; lo+300 <= len(vs); lo += 1000 {
		checkBound(t, "edges", vs[lo:lo+300])
	}
}

// Known values: a bucket's one value is returned exactly; zero is exact; a
// percentile is within RelErr of the value the nearest rank picks.
func TestPercentileKnownValues(t *testing.T) {
	var h Hist
	if got := h.Percentile(50); !math.IsNaN(got) {
		t.Errorf("empty p50 = %v, want NaN", got)
	}
	h.Add(12345678, 1)
	for _, p := range ps {
		if got := h.Percentile(p); got != 12345678 {
			t.Errorf("one value: p%g = %v, want 12345678 exactly", p, got)
		}
	}
	var z Hist
	z.Add(0, 3)
	z.Add(1e6, 1)
	if got := z.Percentile(75); got != 0 {
		t.Errorf("p75 of {0×3, 1e6} = %v, want 0", got)
	}
	if got := z.Percentile(76); got != 1e6 {
		t.Errorf("p76 of {0×3, 1e6} = %v, want 1e6 (the one value of its bucket)", got)
	}
	// Gaps of 10, 10, 10 and 50 ms, and their negatives: each bucket holds
	// one distinct value, so every percentile is exact.
	var even Hist
	for _, v := range []float64{10e6, 50e6, 10e6, 10e6, -10e6, -50e6} {
		even.Add(v, 1)
	}
	for p, want := range map[float64]float64{10: -50e6, 30: -10e6, 50: 10e6, 83: 10e6, 84: 50e6, 99: 50e6} {
		if got := even.Percentile(p); got != want {
			t.Errorf("p%g of {±10, 10, 10, ±50 ms} = %v, want %v exactly", p, got, want)
		}
	}
	// 1..100 ms: p50 is 50 ms, p99 is 99 ms, each within RelErr.
	var ms Hist
	for i := 1; i <= 100; i++ {
		ms.Add(float64(i)*1e6, 1)
	}
	for _, p := range []float64{50, 99} {
		want := p * 1e6
		if got := ms.Percentile(p); math.Abs(got-want) > RelErr*want {
			t.Errorf("1..100 ms: p%g = %v, want %v within %g", p, got, want, RelErr)
		}
	}
	if ms.Max() != 100e6 || ms.Count() != 100 {
		t.Errorf("max %v count %d, want 1e8 and 100", ms.Max(), ms.Count())
	}
	// Ignored input.
	ms.Add(math.NaN(), 1)
	ms.Add(5, 0)
	ms.Add(math.Inf(1), 1)
	if ms.Count() != 100 {
		t.Errorf("NaN, Inf and zero-weight values were counted: %d", ms.Count())
	}
}

// The histogram's size depends on the spread of the values, not on how
// many there are: a million values between 1 µs and 10 s take the ~8070
// buckets of those 7 decades.
func TestSizeIndependentOfCount(t *testing.T) {
	var h Hist
	rng := rand.New(rand.NewPCG(3, 4))
	for range 1_000_000 {
		h.Add(1e3*math.Pow(1e7, rng.Float64()), 1)
	}
	// 7 decades at ln(10)/ln(γ) ≈ 1152 buckets per decade.
	if n, most := len(h.pos.w), int(math.Ceil(7*math.Log(10)/logGamma))+1; n > most {
		t.Errorf("%d buckets for 7 decades, want ≤ %d", n, most)
	}
}
