package fit

import (
	"math"
	"strings"
	"testing"
)

// Check names each bound a run goes past, and only those: twice the
// largest measured load (its mean in flight, or its concurrency, whichever
// is more), the largest load itself when the slot limit is unknown, twice
// the largest rate (offered or achieved), twice the longest prompt and
// output, and an ill-conditioned fit first.
func TestCalibrationCheck(t *testing.T) {
	c := Calibration{MaxConcurrency: 8, MaxInflight: 7.5, MaxRate: 10, MaxRequestsPS: 12, MaxPrompt: 300, MinOutput: 20, MaxOutput: 64, SlotsKnown: true}
	unknown := c
	unknown.SlotsKnown = false
	loose := c
	loose.IllConditioned = []string{"prefill_base is not identified"}
	for _, tt := range []struct {
		name string
		c    Calibration
		a    Asked
		want []string
	}{
		{"within", c, Asked{Concurrency: []int{1, 16}, Rates: []float64{24}, MaxPrompt: 600, MaxOutput: 128}, nil},
		{"load", c, Asked{Concurrency: []int{4, 17}}, []string{"concurrency 17 is beyond 2× the largest measured load (8 in flight)"}},
		{"in flight above C", Calibration{MaxConcurrency: 4, MaxInflight: 9, MaxPrompt: 1, MaxOutput: 1, SlotsKnown: true}, Asked{Concurrency: []int{18}}, nil},
		{"slots unknown", unknown, Asked{Concurrency: []int{9}}, []string{"concurrency 9 is beyond 1× (the batch-slot limit was not identified) the largest measured load (8 in flight)"}},
		{"slots unknown, within", unknown, Asked{Concurrency: []int{8}, Rates: []float64{12}}, nil},
		{"rate", c, Asked{Rates: []float64{1, 24.5}}, []string{"rate 24.5 req/s is beyond 2× the largest measured rate (12 req/s)"}},
		{"prompt", c, Asked{MaxPrompt: 601}, []string{"a prompt of 601 tokens is beyond 2× the longest measured (300)"}},
		{"output", c, Asked{MaxOutput: 129}, []string{"an output of 129 tokens is beyond 2× the longest measured (64)"}},
		{"ill-conditioned", loose, Asked{MaxPrompt: 700}, []string{"the fit is ill-conditioned: prefill_base is not identified", "a prompt of 700 tokens is beyond 2× the longest measured (300)"}},
	} {
		got := tt.c.Check(tt.a)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// A fit records the range it was fitted on: the largest load of the levels'
// figures, the longest prompt and the output lengths of the measured
// successful requests (warm-up and failures left out), and a well-posed fit
// (varied prompts, levels past the slot limit) is not ill-conditioned.
func TestFitRecordsItsCalibration(t *testing.T) {
	spec := variedSpec
	spec.seed = 1
	levels := synth(knownTruth, spec)
	levels[1].Records[0].PromptTokens = 5000 // a warm-up, and a failure, of a longer prompt: not in the range
	levels[1].Records[0].Warmup = true
	levels[2].Records[0].PromptTokens = 6000
	levels[2].Records[0].ErrorClass = "http_5xx"
	wantPrompt, minOut, maxOut := 0, math.MaxInt, 0
	for i := range levels {
		levels[i].Measured = &Measured{Level: levels[i].Name, Mode: "closed", Concurrency: spec.levels[i], InflightMean: float64(spec.levels[i]) - 0.5, RequestsPerS: float64(10 * i)}
		for _, r := range levels[i].Records {
			if r.OK() && !r.Warmup {
				wantPrompt = max(wantPrompt, r.PromptTokens)
				minOut, maxOut = min(minOut, r.OutputTokens()), max(maxOut, r.OutputTokens())
			}
		}
	}
	m, err := FromLevels(levels, Options{Resamples: 50})
	if err != nil {
		t.Fatal(err)
	}
	want := Calibration{MaxConcurrency: 12, MaxInflight: 11.5, MaxRequestsPS: 40, MaxPrompt: wantPrompt, MinOutput: minOut, MaxOutput: maxOut, SlotsKnown: true}
	if c := m.Calibration; c == nil || c.MaxConcurrency != want.MaxConcurrency || c.MaxInflight != want.MaxInflight || c.MaxRequestsPS != want.MaxRequestsPS ||
		c.MaxPrompt != want.MaxPrompt || c.MinOutput != want.MinOutput || c.MaxOutput != want.MaxOutput || !c.SlotsKnown || len(c.IllConditioned) != 0 {
		t.Errorf("calibration %+v, want %+v", c, want)
	}
	if wantPrompt >= 5000 || len(m.Measured) != len(levels) || m.Measured[4].Concurrency != 12 {
		t.Errorf("longest prompt %d; measured %+v", wantPrompt, m.Measured)
	}
}

// A parameter not identified makes the fit ill-conditioned; the slot limit
// not identified bounds the load instead.
func TestUnidentifiedIsIllConditioned(t *testing.T) {
	spec := variedSpec
	spec.promptLo, spec.hiP, spec.seed = 36, 36, 3
	m, err := FromLevels(synth(knownTruth, spec), Options{Resamples: 20})
	if err != nil {
		t.Fatal(err)
	}
	if c := m.Calibration; len(c.IllConditioned) != 1 || c.IllConditioned[0] != "prefill_base is not identified" || !c.SlotsKnown {
		t.Errorf("calibration %+v, want prefill_base ill-conditioned, slots known", c)
	}
	spec = variedSpec
	spec.levels, spec.seed = []int{1, 2, 4}, 4 // below the 8 slots
	m, err = FromLevels(synth(knownTruth, spec), Options{Resamples: 20})
	if err != nil {
		t.Fatal(err)
	}
	if c := m.Calibration; len(c.IllConditioned) != 0 || c.SlotsKnown {
		t.Errorf("calibration %+v, want well-posed with the slots unknown", c)
	}
}

// spread is the interval's width times the rows' sum of the regressor over
// their summed duration, over the rows the parameter is part of: here
// (30 − 10)ns × (100 + 300) tokens / (2000 + 6000)ns = 1, the row without
// context left out.
func TestSpread(t *testing.T) {
	f := &fitter{data: []levelData{{rows: []row{
		{x: [nCols]float64{colDecodeBase: 1, colPerCtx: 100}, y: 2000},
		{x: [nCols]float64{colDecodeBase: 1}, y: 1e9},
	}}, {rows: []row{{x: [nCols]float64{colDecodeBase: 1, colPerCtx: 300}, y: 6000}}}}}
	lo, hi := 10.0, 30.0
	if got := f.spread(Param{Name: "decode_per_ctx_token", Lo: &lo, Hi: &hi}); got != 1 {
		t.Errorf("spread %v, want 1", got)
	}
	c := Calibration{}
	m := &Model{Params: []Param{{Name: "decode_per_ctx_token", Unit: "ns/token", InSim: true, Identified: true, Lo: &lo, Hi: &hi}, {Name: "max_num_seqs", Identified: true}}}
	c = f.calibration(m)
	if len(c.IllConditioned) != 1 || c.IllConditioned[0] != "decode_per_ctx_token's 80% interval (10.0ns/token – 30.0ns/token) moves the steps it is part of by 100%" {
		t.Errorf("ill-conditioned %q", c.IllConditioned)
	}
}

// The text says the calibration range and each ill-conditioned reason;
// Params names every parameter set; Caution joins the reasons.
func TestCalibrationText(t *testing.T) {
	spec := variedSpec
	spec.promptLo, spec.hiP, spec.seed = 36, 36, 3
	m, err := FromLevels(synth(knownTruth, spec), Options{Resamples: 20})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := m.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nCalibrated on up to 0 in flight (C=0), 0 req/s, prompts up to 36 tokens, outputs of ", "- ill-conditioned: prefill_base is not identified.\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	p := m.Sim.Params()
	if len(p) != 10 || p["request_overhead_ns"] != *m.Sim.RequestOverheadNs || p["request_overhead_per_token_per_seq_ns"] != *m.Sim.RequestOverheadPerTokenPerSeqNs || p["max_num_seqs"] != float64(*m.Sim.MaxNumSeqs) || p["decode_base_ns"] != *m.Sim.DecodeBaseNs || p["prefill_tokens_per_sec"] != *m.Sim.PrefillTokensPerSec {
		t.Errorf("params %v", p)
	}
	if got := Caution([]string{"a", "b"}); got != "an extrapolation (--allow-extrapolation): a; b" {
		t.Errorf("caution %q", got)
	}
}
