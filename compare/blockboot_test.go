package compare

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestBlockLength(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ n, c, want int }{
		{24, 1, 3},    // ⌈24^(1/3)⌉ = 3
		{24, 16, 4},   // C = 16 capped at 24/5: five blocks at least
		{240, 8, 8},   // C = 8 above ⌈240^(1/3)⌉ = 7
		{1000, 2, 10}, // ⌈1000^(1/3)⌉
		{5, 4, 1},
	} {
		if got := blockLength(tt.n, tt.c); got != tt.want {
			t.Errorf("blockLength(%d, %d) = %d, want %d", tt.n, tt.c, got, tt.want)
		}
	}
}

// TestHarrellDavis: the weights sum to 1 and are symmetric for the
// median, so the median of a symmetric sample is its centre; a single
// value is its own median.
func TestHarrellDavis(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 5, 24, 101} {
		w := hdWeights(n, 0.5)
		sum := 0.0
		for i := range w {
			sum += w[i]
			if math.Abs(w[i]-w[n-1-i]) > 1e-9 {
				t.Fatalf("n=%d: w[%d]=%v, w[%d]=%v: not symmetric", n, i, w[i], n-1-i, w[n-1-i])
			}
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("n=%d: weights sum to %v", n, sum)
		}
	}
	if got := weighted([]float64{1, 2, 3, 10, 11, 12}, hdWeights(6, 0.5)); math.Abs(got-6.5) > 1e-9 {
		t.Errorf("HD median of a symmetric sample: %v, want 6.5", got)
	}
}

// TestBlockResample: a block as long as the sample can only start at 0,
// so the resample is the sample; with blocks of 1 it is an ordinary
// bootstrap, which over many draws picks every value.
func TestBlockResample(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	seq := []float64{5, 3, 9, 1, 7}
	out := make([]float64, len(seq))
	blockResample(rng, seq, len(seq), out)
	if want := slices.Sorted(slices.Values(seq)); !slices.Equal(out, want) {
		t.Errorf("one block: %v, want %v", out, want)
	}
	seen := map[float64]bool{}
	for range 200 {
		blockResample(rng, seq, 1, out)
		for _, x := range out {
			seen[x] = true
		}
	}
	if len(seen) != len(seq) {
		t.Errorf("blocks of 1 drew %v", seen)
	}
}

// TestIntervalContainsItsEstimate: 24 requests a side with coarse values
// (whole tok/s, many ties), as in the run where the percentile bootstrap
// of a nearest-rank median gave 0.997 in [0.997, 1.010]: the interval
// contains the shown ratio at every seed, and strictly inside at most.
func TestIntervalContainsItsEstimate(t *testing.T) {
	t.Parallel()
	strict := 0
	const seeds = 60
	for s := range seeds {
		rng := rand.New(rand.NewPCG(uint64(s), 7))
		a, b := make([]float64, 24), make([]float64, 24)
		for i := range a {
			a[i] = math.Round(100 + 3*rng.NormFloat64())
			b[i] = math.Round(100 + 3*rng.NormFloat64())
		}
		ratio := percentileEstimate(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)), 50).Ratio
		lo, hi := blockBootstrapRatio(rng, side{a, blockLength(24, 16)}, side{b, blockLength(24, 16)}, 50, 1000, 0.95, ratio)
		if !(lo <= ratio && ratio <= hi) {
			t.Fatalf("seed %d: %.4f not in [%.4f, %.4f]", s, ratio, lo, hi)
		}
		if lo < ratio && ratio < hi {
			strict++
		}
	}
	if strict < seeds*9/10 {
		t.Errorf("only %d of %d intervals have the estimate strictly inside", strict, seeds)
	}
}

// TestDependentRequestsWidenTheInterval: requests in batches of C = 8 that
// share a shift (a batch's step time, a moment of machine load) are not
// independent; the block bootstrap sees it and gives a wider interval
// than resampling requests one by one (blocks of 1, the former iid
// bootstrap), while on independent requests the two agree.
func TestDependentRequestsWidenTheInterval(t *testing.T) {
	t.Parallel()
	const c, batches = 8, 30
	series := func(seed uint64, shift float64) []float64 {
		rng := rand.New(rand.NewPCG(seed, 3))
		var xs []float64
		for range batches {
			s := shift * rng.NormFloat64()
			for range c {
				xs = append(xs, 100+s+2*rng.NormFloat64())
			}
		}
		return xs
	}
	width := func(a, b []float64, bl int) float64 {
		ratio := percentileEstimate(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)), 50).Ratio
		lo, hi := blockBootstrapRatio(rand.New(rand.NewPCG(9, 9)), side{a, bl}, side{b, bl}, 50, 2000, 0.95, ratio)
		return math.Log(hi / lo)
	}
	bl := blockLength(c*batches, c)
	dep := [2][]float64{series(1, 6), series(2, 6)}
	iid, block := width(dep[0], dep[1], 1), width(dep[0], dep[1], bl)
	t.Logf("batch-shifted: iid width %.4f, blocks of %d %.4f", iid, bl, block)
	if !(block > 1.5*iid) {
		t.Errorf("batch-shifted requests: block interval %.4f not wider than 1.5 × the iid one %.4f", block, iid)
	}
	ind := [2][]float64{series(3, 0), series(4, 0)}
	iid, block = width(ind[0], ind[1], 1), width(ind[0], ind[1], bl)
	t.Logf("independent: iid width %.4f, blocks of %d %.4f", iid, bl, block)
	if r := block / iid; r < 0.6 || r > 1.6 {
		t.Errorf("independent requests: block width %.4f vs iid %.4f", block, iid)
	}
}

// TestIdenticalRunsNoVerdict: a run compared with itself never gets a
// verdict of difference, by construction: with one run a side no verdict
// rests on a within-run interval (Judged), and with repetitions the
// between-run interval is centred on the pooled ratio, exactly 1, so it
// contains 1.
func TestIdenticalRunsNoVerdict(t *testing.T) {
	t.Parallel()
	once := base.run("a", 5, 8, 1, 4)
	repeated := base.repeat(base.repeat(once, 6, 4, 8), 7, 4, 8)
	for _, r := range []Run{once, repeated} {
		tab, err := Compare([]Run{r, r}, Options{Seed: 3, Resamples: 200})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range tab.Comparisons[0].Levels {
			for _, e := range l.Estimates {
				v := e.Verdict("B", tab.Confidence)
				if e.Ratio != 1 || e.Meaningful() || e.Significant() && e.Judged() {
					t.Errorf("%s %s: ratio %v, verdict %q", l.Key, e.Metric, e.Ratio, v)
				}
				if e.HasCI() && !strings.HasPrefix(v, "no verdict from one run a side") && !strings.HasPrefix(v, "no significant difference") {
					t.Errorf("%s %s: verdict %q", l.Key, e.Metric, v)
				}
			}
		}
	}
}
