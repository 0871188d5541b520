package openloop

import (
	"math"
	"slices"
	"testing"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/report"
)

// scriptedRates is a server of maximum throughput x req/s that meets the
// SLO up to slo req/s: a level completes min(rate, x) per second, and is
// unstable when that falls short of its arrivals by more than ShortfallMax.
// testMaxRate is --rates' bound (app's maxRate).
const testMaxRate = 10000

func scriptedRates(x, slo float64) func(float64) mode.RateVerdict {
	return func(r float64) mode.RateVerdict {
		achieved := min(r, x)
		unstable := achieved < (1-report.ShortfallMax)*r
		return mode.RateVerdict{Pass: !unstable && r <= slo, Unstable: unstable, Achieved: achieved, Offered: r}
	}
}

func runRatePlan(p *Search) []float64 {
	var rates []float64
	for r, ok := p.Next(); ok; r, ok = p.Next() {
		rates = append(rates, r)
		if len(rates) > 100 {
			break
		}
	}
	return rates
}

// The exact sequences, worked by hand from the doc comment of Rates.
func TestRateAutoPlanSequences(t *testing.T) {
	for _, tt := range []struct {
		name   string
		x, slo float64
		want   []float64
		lo, hi float64
	}{
		// Throughput-bound: 64 is unstable, completing 33.6/s; the ceiling is
		// 33.6/0.95 = 35.37, the guess 0.9·33.6 = 30.24 → 30.2 (passes), then
		// √(30.2·35.37) = 32.68 → 32.7 (passes) and 35.37 ≤ 1.1·32.7: done.
		{"throughput", 33.6, math.Inf(1), []float64{1, 4, 16, 64, 30.2, 32.7}, 32.7, 64},
		// SLO-bound at 10 req/s with ample throughput: 16 fails stably, then
		// geometric bisection: √(4·16) = 8, √(8·16) = 11.3, √(8·11.3) = 9.51,
		// √(9.51·11.3) = 10.4 (fails) and 10.4 ≤ 1.1·9.51: done.
		{"slo", 1000, 10, []float64{1, 4, 16, 8, 11.3, 9.51, 10.4}, 9.51, 10.4},
		{"nothing passes", 0.5, 10, []float64{1}, 0, 1},
		// Never fails: ×4 up to the 8-level bound (capped at testMaxRate).
		{"never fails", math.Inf(1), math.Inf(1), []float64{1, 4, 16, 64, 256, 1024, 4096, testMaxRate}, testMaxRate, 0},
	} {
		p := NewSearch(scriptedRates(tt.x, tt.slo), testMaxRate)
		got := runRatePlan(p)
		if !slices.Equal(got, tt.want) || p.lo != tt.lo || p.hi != tt.hi {
			t.Errorf("%s: tried %v (pass %g, fail %g), want %v (%g, %g)", tt.name, got, p.lo, p.hi, tt.want, tt.lo, tt.hi)
		}
	}
}

// Across servers, the answer passes, at most MaxLevels levels run, and
// the answer is within 10% of what the server can do (or of the ceiling).
func TestRateAutoPlanBrackets(t *testing.T) {
	for _, x := range []float64{2, 7, 33.6, 150, 900} {
		for _, slo := range []float64{1.5, 3, 12, 100, math.Inf(1)} {
			judge := scriptedRates(x, slo)
			p := NewSearch(judge, testMaxRate)
			got := runRatePlan(p)
			if len(got) > MaxLevels {
				t.Errorf("x %g slo %g: %d levels %v", x, slo, len(got), got)
			}
			best := min(x/(1-report.ShortfallMax), slo) // the true answer of this server
			if best < 1 {
				continue
			}
			if !judge(p.lo).Pass || p.lo > best || p.lo < best/rateAutoSpread/1.01 {
				t.Errorf("x %g slo %g: tried %v, answer %g, true %g", x, slo, got, p.lo, best)
			}
		}
	}
}
