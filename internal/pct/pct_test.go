package pct

import (
	"math"
	"testing"
)

func seq(n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i + 1)
	}
	return xs
}

// TestPercentile checks nearest rank against hand-computed ranks:
// k = ceil(p/100 × n).
func TestPercentile(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		xs   []float64
		p    float64
		want float64
	}{
		{"empty", nil, 50, nan},
		{"p0 is out of range", seq(10), 0, nan},
		{"p above 100", seq(10), 100.5, nan},
		{"n=1 p10", []float64{7}, 10, 7},
		{"n=1 p50", []float64{7}, 50, 7},
		{"n=1 p99", []float64{7}, 99, 7},
		{"n=1 p100", []float64{7}, 100, 7},
		{"n=10 p10 k=1", seq(10), 10, 1},
		{"n=10 p50 k=5", seq(10), 50, 5},
		{"n=10 p95 k=ceil(9.5)=10", seq(10), 95, 10},
		{"n=10 p99 is the max", seq(10), 99, 10},
		{"n=10 p100", seq(10), 100, 10},
		{"n=10 p11 k=ceil(1.1)=2", seq(10), 11, 2},
		{"n=100 p10", seq(100), 10, 10},
		{"n=100 p50", seq(100), 50, 50},
		{"n=100 p95 k=95 not 96", seq(100), 95, 95},
		{"n=100 p99", seq(100), 99, 99},
		{"n=100 p100", seq(100), 100, 100},
		{"n=99 p99 k=ceil(98.01)=99 the max", seq(99), 99, 99},
		{"n=200 p99.5 k=199", seq(200), 99.5, 199},
		{"ties p10 k=1", []float64{1, 2, 2, 2, 3}, 10, 1},
		{"ties p50 k=3", []float64{1, 2, 2, 2, 3}, 50, 2},
		{"ties p80 k=4", []float64{1, 2, 2, 2, 3}, 80, 2},
		{"ties p81 k=5", []float64{1, 2, 2, 2, 3}, 81, 3},
		{"n=2 p50 k=1 (lower value)", []float64{1, 2}, 50, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Percentile(tt.xs, tt.p)
			if !sameFloat(got, tt.want) {
				t.Errorf("Percentile(%v, %v) = %v, want %v", tt.xs, tt.p, got, tt.want)
			}
		})
	}
}

func TestWeightedPercentile(t *testing.T) {
	nan := math.NaN()
	unit := func(xs ...float64) []Weighted {
		var ws []Weighted
		for _, x := range xs {
			ws = append(ws, Weighted{x, 1})
		}
		return ws
	}
	tenths := make([]Weighted, 10)
	thirds := make([]Weighted, 10) // w = U/K = 1/3: chunk count three times usage
	for i := range tenths {
		tenths[i] = Weighted{float64(i + 1), 0.1}
		thirds[i] = Weighted{float64(i + 1), 1.0 / 3}
	}
	// 10 ms gaps of one-token chunks, and one 60 ms gap of a 3-token chunk
	// (20 ms per token, weight 3): the pooled ITL of two requests.
	pooled := []Weighted{{10, 1}, {10, 1}, {20, 3}}
	tests := []struct {
		name string
		xs   []Weighted
		p    float64
		want float64
	}{
		{"empty", nil, 50, nan},
		{"zero total weight", []Weighted{{1, 0}}, 50, nan},
		{"p out of range", unit(1, 2), 0, nan},
		{"unit weights equal nearest rank p50", unit(1, 2, 3, 4), 50, 2},
		{"unit weights equal nearest rank p51", unit(1, 2, 3, 4), 51, 3},
		{"unit weights p100", unit(1, 2, 3, 4), 100, 4},
		{"pooled p40 cum 2 of 5", pooled, 40, 10},
		{"pooled p50 needs 2.5 of 5", pooled, 50, 20},
		{"pooled p99", pooled, 99, 20},
		{"zero weight never selected", []Weighted{{1, 0}, {2, 1}}, 10, 2},
		{"inexact sums p60 of tenths", tenths, 60, 6},
		{"inexact sums p30 of tenths", tenths, 30, 3},
		{"inexact sums p100 of tenths", tenths, 100, 10},
		// Summing ten 1/3s in float falls an ulp short of 5/3 at the fifth
		// sample; without slack the answer would be 6.
		{"inexact sums p50 of thirds", thirds, 50, 5},
		{"inexact sums p10 of thirds", thirds, 10, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := WeightedPercentile(tt.xs, tt.p)
			if !sameFloat(got, tt.want) {
				t.Errorf("WeightedPercentile(%v, %v) = %v, want %v", tt.xs, tt.p, got, tt.want)
			}
		})
	}
}

func sameFloat(a, b float64) bool {
	return a == b || math.IsNaN(a) && math.IsNaN(b)
}

// TestRank checks the rank against Percentile on 1..n, where the value is
// the rank, and the undefined cases.
func TestRank(t *testing.T) {
	for _, n := range []int{0, 1, 2, 5, 10, 99, 100, 101, 1000} {
		for _, p := range []float64{-1, 0, 0.1, 10, 50, 95, 99, 99.9, 100, 101} {
			got, want := Rank(n, p), Percentile(seq(n), p)
			if math.IsNaN(want) {
				if got != 0 {
					t.Errorf("Rank(%d, %v) = %d, want 0", n, p, got)
				}
				continue
			}
			if float64(got) != want {
				t.Errorf("Rank(%d, %v) = %d, want %v", n, p, got, want)
			}
		}
	}
}
