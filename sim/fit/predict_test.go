package fit

import (
	"math"
	"testing"
)

// A figure's band is v·exp(±z80·σ), σ² the draws' variance (their 10–90%
// range / 2 z80 on the log scale) plus twice the sampling noise's plus the
// misfit's (RMS of the levels' biases), by hand here.
func TestBands(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	m := Model{Sim: SimParams{DecodeBaseNs: f(1e6)}, Levels: []Residual{{Bias: 0.03}, {Bias: -0.03}, {Bias: math.NaN()}},
		Draws: []SimParams{{DecodeBaseNs: f(1.1e6)}, {DecodeBaseNs: f(0.9e6)}}}
	got := m.Bands(Point{Batch: 1, Output: 10}, map[string]float64{"tpot_p50_ms": 1, "decode_tps_p50": 100}, map[string]float64{"tpot_p50_ms": 0.01})
	sp := (math.Log(1.1) - math.Log(0.9)) / (2 * z80)
	for name, want := range map[string]float64{
		"tpot_p50_ms":    z80 * math.Sqrt(sp*sp+2*0.01*0.01+0.03*0.03),
		"decode_tps_p50": z80 * math.Sqrt(sp*sp+0.03*0.03),
	} {
		b := got[name]
		if w := math.Log(b.Hi / b.Predicted); math.Abs(w-want) > 1e-12 || math.Abs(math.Log(b.Predicted/b.Lo)-want) > 1e-12 {
			t.Errorf("%s: band %+v, half-width %g on the log scale, want %g", name, b, w, want)
		}
	}
}

// A TTFT's idle part (at most the idle TTFT) moves with the idle TTFT, the
// rest with the step; decode figures with the step; throughput with a
// request's time.
func TestRescale(t *testing.T) {
	base, c := costs{step: 1e6, idle: 1e6, request: 4e6}, costs{step: 2e6, idle: 1.5e6, request: 5e6}
	for _, tt := range []struct {
		name    string
		v, want float64
	}{
		{"ttft_p50_ms", 3, 1*1.5 + 2*2},
		{"ttft_p95_ms", 0.5, 0.75},
		{"tpot_p50_ms", 3, 6},
		{"decode_tps_p50", 100, 50},
		{"aggregate_output_tps", 500, 400},
	} {
		if got := rescale(tt.name, tt.v, base, c); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: %g, want %g", tt.name, got, tt.want)
		}
	}
}

// RankNoise reads the values at ranks n·p ± z80·√(n·p·(1−p)), by hand
// here; WindowNoise is the batch means' standard error.
func TestSamplingNoiseArithmetic(t *testing.T) {
	xs := make([]float64, 100)
	for i := range xs {
		xs[i] = float64(i + 1) // rank r holds r
	}
	d := z80 * math.Sqrt(100*0.5*0.5) // 6.408
	if got, want := RankNoise(xs, 0.5), math.Log((50+d)/(50-d))/(2*z80); math.Abs(got-want) > 1e-12 {
		t.Errorf("p50 of 1…100: %g, want %g", got, want)
	}
	// p95 of 1…100: ranks 95 ± 2.793, the upper clamped at 100 (rank 97.793 holds 97.793)
	d95 := z80 * math.Sqrt(100*0.95*0.05)
	if got, want := RankNoise(xs, 0.95), math.Log((95+d95)/(95-d95))/(2*z80); math.Abs(got-want) > 1e-12 {
		t.Errorf("p95 of 1…100: %g, want %g", got, want)
	}
	// 4 values, p95: ranks 3.8 ± 0.559, the upper clamped at rank 4
	if got, want := RankNoise([]float64{1, 2, 4, 8}, 0.95), math.Log(8/(4+(3.8-z80*math.Sqrt(4*0.95*0.05)-3)*4))/(2*z80); math.Abs(got-want) > 1e-12 {
		t.Errorf("p95 of 1,2,4,8: %g, want %g", got, want)
	}
	if RankNoise([]float64{3}, 0.5) != 0 || RankNoise(nil, 0.5) != 0 {
		t.Error("fewer than 2 values have noise")
	}
	// counts 9, 11, 10, 10: mean 10, sd √(2/3), over √4
	if got, want := WindowNoise([]float64{9, 11, 10, 10}), math.Sqrt(2.0/3)/10/2; math.Abs(got-want) > 1e-12 {
		t.Errorf("window noise %g, want %g", got, want)
	}
	if WindowNoise([]float64{5}) != 0 || WindowNoise([]float64{0, 0}) != 0 {
		t.Error("one sub-window, or none counted, has noise")
	}
}
