package fit

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
)

// cliffSpec's prompts (200–400 tokens) and outputs (32–96) keep C=4's
// batch under 2 000 tokens of context (at most 4 × 496 = 1 984) and C=8's
// mostly over it (at least 8 × 232 = 1 856).
var cliffSpec = synthSpec{levels: []int{1, 2, 4, 8}, promptLo: 200, hiP: 400, outLo: 32, outHi: 96, arrivalNoiseNs: 50e3, seed: 11}

// A server whose steps past 2 000 tokens of context last 3× as long is a
// poor fit at C=8, the one level past the cliff, and only there: the other
// levels' fit predicts C=8's steps at about a third of their time. The
// clean records of the same runs are no poor fit.
func TestPoorFitNamesTheLevelPastTheCliff(t *testing.T) {
	tr := knownTruth
	tr.cliffCtx, tr.cliffFactor = 2000, 3
	m, err := FromLevels(synth(tr, cliffSpec), Options{Resamples: 20})
	if err != nil {
		t.Fatal(err)
	}
	poor := m.PoorFit()
	if len(poor) != 1 || !strings.HasPrefix(poor[0], "c=8: measured steps average ") {
		t.Fatalf("poor fit %q, want one sentence naming c=8; levels %+v", poor, m.Levels)
	}
	// The sentence's figures: C=8 under the fit of c=1, 2 and 4, whose
	// clean steps it recovers, so about 3× (the steps of its tail, under
	// the cliff once the last requests leave, bring it below).
	var ratio, bias float64
	if _, err := fmtScan(poor[0], &ratio, &bias); err != nil {
		t.Fatalf("%q: %v", poor[0], err)
	}
	if ratio < 2.4 || ratio > 3.05 || math.Abs(1/(1+bias/100)-ratio) > 0.06 {
		t.Errorf("%q: want about 3× and a bias of 1/ratio − 1", poor[0])
	}
	t.Logf("%s; levels %+v", poor[0], m.Levels)
	var text bytes.Buffer
	if err := m.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "Poor fit: the step model cannot represent the server at these levels") || !strings.Contains(text.String(), "- "+poor[0]+".\n") {
		t.Errorf("the text does not say the poor fit:\n%s", text.String())
	}
	var js bytes.Buffer
	if err := m.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	back, err := Read(&js)
	if err != nil || len(back.PoorFit()) != 1 || back.PoorFit()[0] != poor[0] {
		t.Errorf("model.json's poor_fit read back as %q (%v)", back.PoorFit(), err)
	}
	clean, err := FromLevels(synth(knownTruth, cliffSpec), Options{Resamples: 20})
	if err != nil {
		t.Fatal(err)
	}
	if p := clean.PoorFit(); len(p) != 0 {
		t.Errorf("the clean records are a poor fit: %q", p)
	}
}

// Every level of a fit that no subset of levels fits is named by its own
// residual; a fit within the bound names none.
func TestPoorFitSentences(t *testing.T) {
	res := []Residual{
		{Level: "C=1", MeasuredNs: 1e6, FittedNs: 1.1e6, Bias: 0.10},
		{Level: "C=2", MeasuredNs: 2e6, FittedNs: 1e6, Bias: -0.5},
		{Level: "C=4", MeasuredNs: math.NaN(), FittedNs: math.NaN(), Bias: math.NaN()},
		{Level: "C=8", MeasuredNs: 1e6, FittedNs: 1.25e6, Bias: 0.25},
	}
	got := sentences(res, nil, "")
	want := []string{"C=2: measured steps average 2.0× the fitted ones (bias -50%)", "C=8: measured steps average 0.8× the fitted ones (bias +25%)"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("sentences %q, want %q", got, want)
	}
	if w := worst(res[:1], nil); w != 0.10 {
		t.Errorf("worst %v, want 0.10", w)
	}
	if got := sentences(res, []bool{false, false, false, true}, " elsewhere"); len(got) != 1 || !strings.HasPrefix(got[0], "C=8") {
		t.Errorf("with only C=8 left out: %q", got)
	}
}

// fmtScan reads a poor-fit sentence's ratio and bias (in %).
func fmtScan(s string, ratio, bias *float64) (int, error) {
	_, rest, _ := strings.Cut(s, ": ")
	return fmt.Sscanf(strings.NewReplacer("×", " ", "%", "").Replace(rest), "measured steps average %g the fitted ones as the other levels' fit gives them (bias %g)", ratio, bias)
}
