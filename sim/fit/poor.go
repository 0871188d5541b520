package fit

import (
	"fmt"
	"math"
	"slices"
)

// PoorBias is the poor-fit bound: a level whose mean fitted decode step
// misses its measured one by more than this share (|Residual.Bias|) is one
// the step model cannot represent. Clean fits of the simulator (its
// presets, hidden-parameter draws) miss by under 1%; docs/metrics.md gives
// the figures.
const PoorBias = 0.15

// PoorFit lists, one sentence each, the levels whose measured steps the
// fitted model cannot represent (docs/metrics.md, "The fitted model");
// empty for a good fit, and for a model from before the check.
func (m Model) PoorFit() []string { return m.Poor }

// poorFit finds the levels the step model cannot represent. When a level
// of the full fit misses by more than PoorBias, levels are left out one at
// a time, each time the one whose absence fits the rest best, until the
// rest fit within the bound: the levels left out, as the rest's fit
// predicts them, are the poor ones (a cliff at the top levels bends the
// full fit, which then misses the clean levels instead). When no two
// levels fit, every level the full fit misses is named.
func (f *fitter) poorFit(full []Residual) []string {
	if worst(full, nil) <= PoorBias {
		return nil
	}
	out := make([]bool, len(f.data))
	for left := len(f.data); left > 2; left-- {
		best, bestRes := -1, []Residual(nil)
		for i := range f.data {
			if out[i] {
				continue
			}
			out[i] = true
			if res, ok := f.refit(out); ok && (best < 0 || worst(res, out) < worst(bestRes, out)) {
				best, bestRes = i, res
			}
			out[i] = false
		}
		if best < 0 {
			break
		}
		out[best] = true
		if worst(bestRes, out) <= PoorBias {
			return sentences(bestRes, out, " as the other levels' fit gives them")
		}
	}
	return sentences(full, nil, "")
}

// refit fits the levels not left out (with the full fit's robust weights)
// and returns every level's residual under it.
func (f *fitter) refit(out []bool) ([]Residual, bool) {
	var g gram
	for i, d := range f.data {
		if !out[i] {
			for _, r := range d.rows {
				g.addWeighted(r.x, r.y, r.weight())
			}
		}
	}
	beta, ok := nnls(&g, f.kept)
	if !ok {
		return nil, false
	}
	var res []Residual
	for i, d := range f.data {
		res = append(res, residualOf(f.levels[i].Name, d, beta))
	}
	return res, true
}

// worst is the largest |bias| of the levels not left out (out nil: all).
func worst(res []Residual, out []bool) float64 {
	w := 0.0
	for i, r := range res {
		if (out == nil || !out[i]) && !math.IsNaN(r.Bias) {
			w = math.Max(w, math.Abs(r.Bias))
		}
	}
	return w
}

// sentences says of each level past the bound (only those left out, when
// out is set) how its measured steps compare with the fitted ones.
func sentences(res []Residual, out []bool, fitted string) []string {
	var s []string
	for i, r := range res {
		if (out != nil && !out[i]) || math.IsNaN(r.Bias) || math.Abs(r.Bias) <= PoorBias {
			continue
		}
		s = append(s, fmt.Sprintf("%s: measured steps average %.1f× the fitted ones%s (bias %+.0f%%)", r.Level, r.MeasuredNs/r.FittedNs, fitted, 100*r.Bias))
	}
	return slices.Clip(s)
}
