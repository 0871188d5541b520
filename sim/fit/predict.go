package fit

import (
	"math"
	"slices"

	"github.com/toksweep/toksweep/internal/pct"
)

// maxDraws is how many of the bootstrap's refits model.json keeps.
const maxDraws = 50

// z80 is the standard normal's 90th percentile: an 80% interval is ±z80 σ.
const z80 = 1.2816

// drawSims is the simulator parameters of the first maxDraws refits, the
// slot limit and the prefill kept as the model's.
func (f *fitter) drawSims(m Model) []SimParams {
	var out []SimParams
	for _, beta := range f.draws[:min(len(f.draws), maxDraws)] {
		d := Model{Params: slices.Clone(m.Params)}
		for i := range d.Params {
			for c := range nCols {
				if paramOf(c).name == d.Params[i].Name {
					d.Params[i].Value = beta[c]
				}
			}
		}
		d.setSim(f.kept)
		out = append(out, d.Sim)
	}
	return out
}

// Point is a predicted level where the step model is read: its mean
// running batch (in flight, at most the slot limit), and its mean prompt
// and output lengths.
type Point struct {
	Batch, Prompt, Output float64
}

// Band is a predicted figure with its 80% interval.
type Band struct {
	Predicted, Lo, Hi float64
}

// Bands are the 80% intervals of a predicted level's figures (by their
// GradedFigures names): each figure v becomes v·exp(±z80·σ), σ² the sum of
// three variances on the log scale: the parameters' (σ of the figure
// rescaled under each draw, paramSigma), twice the level's own sampling
// noise (noise[name], the predicted run's; the measurement has as much
// again), and the fit's misfit (the RMS of the fitted levels' biases).
func (m Model) Bands(at Point, figs, noise map[string]float64) map[string]Band {
	params := m.paramSigma(at, figs)
	misfit := m.misfit()
	out := map[string]Band{}
	for name, v := range figs {
		s := math.Sqrt(params[name]*params[name] + 2*noise[name]*noise[name] + misfit*misfit)
		w := math.Exp(z80 * s)
		out[name] = Band{Predicted: v, Lo: v / w, Hi: v * w}
	}
	return out
}

// misfit is the root-mean-square of the fitted levels' relative biases.
func (m Model) misfit() float64 {
	var sq float64
	n := 0
	for _, l := range m.Levels {
		if !math.IsNaN(l.Bias) {
			sq += l.Bias * l.Bias
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return math.Sqrt(sq / float64(n))
}

// paramSigma is each figure's σ on the log scale under the draws: its
// 10th–90th percentile range / (2 z80), the figure rescaled per draw as
// the step model moves at the point (rescale).
func (m Model) paramSigma(at Point, figs map[string]float64) map[string]float64 {
	out := map[string]float64{}
	if len(m.Draws) == 0 {
		return out
	}
	base := m.Sim.costs(at)
	logs := map[string][]float64{}
	for _, d := range m.Draws {
		c := d.costs(at)
		for name, v := range figs {
			if r := rescale(name, v, base, c); r > 0 && v > 0 {
				logs[name] = append(logs[name], math.Log(r/v))
			}
		}
	}
	for name, xs := range logs {
		slices.Sort(xs)
		out[name] = (pct.Percentile(xs, 90) - pct.Percentile(xs, 10)) / (2 * z80)
	}
	return out
}

// costs are the step model's times at a point: a decode step of its
// batch, a request's time to its first token on an idle server, and a
// request's share of the batch's time (its prefill and its output's
// steps).
type costs struct{ step, idle, request float64 }

func (s SimParams) costs(at Point) costs {
	v := func(p *float64) float64 {
		if p == nil {
			return 0
		}
		return *p
	}
	step := func(b float64) float64 {
		return v(s.DecodeBaseNs) + b*v(s.DecodePerSeqNs) + b*(at.Prompt+at.Output/2)*v(s.DecodePerCtxTokenNs)
	}
	prefill := 0.0
	if s.PrefillTokensPerSec != nil {
		prefill = v(s.PrefillBaseNs) + at.Prompt*1e9 / *s.PrefillTokensPerSec
	}
	b := max(at.Batch, 1)
	if s.MaxNumSeqs != nil {
		b = min(b, float64(*s.MaxNumSeqs))
	}
	return costs{step: step(b), idle: v(s.RequestOverheadNs) + at.Prompt*v(s.RequestOverheadPerTokenNs) + prefill + step(1),
		request: prefill + at.Output*step(b)}
}

// rescale is figure name's value v, predicted under costs base, as it
// would be under costs c: a decode figure with the step, the throughput
// against a request's time, and a TTFT's idle part (at most the idle
// TTFT) with the idle TTFT, the rest (waiting for slots) with the step.
func rescale(name string, v float64, base, c costs) float64 {
	ratio := func(a, b float64) float64 {
		if b <= 0 {
			return 1
		}
		return a / b
	}
	switch name {
	case "tpot_p50_ms":
		return v * ratio(c.step, base.step)
	case "decode_tps_p50":
		return v / ratio(c.step, base.step)
	case "aggregate_output_tps":
		return v / ratio(c.request, base.request)
	case "ttft_p50_ms", "ttft_p95_ms":
		idle := math.Min(v, base.idle/1e6)
		return idle*ratio(c.idle, base.idle) + (v-idle)*ratio(c.step, base.step)
	}
	return v
}

// RankNoise is the sampling noise, σ on the log scale, of the p-th
// percentile (0 < p < 1) of sorted, positive per-request values: the
// distribution-free 80% interval of a quantile, from the values at ranks
// n·p ± z80·√(n·p·(1−p)) (1-based, linear between ranks, within 1…n),
// over 2 z80. It is 0 with fewer than 2 values.
func RankNoise(sorted []float64, p float64) float64 {
	n := float64(len(sorted))
	if n < 2 || sorted[0] <= 0 {
		return 0
	}
	at := func(rank float64) float64 {
		rank = min(max(rank, 1), n)
		i := int(rank) - 1
		if i+1 >= len(sorted) {
			return sorted[len(sorted)-1]
		}
		f := rank - float64(i+1)
		return sorted[i]*(1-f) + sorted[i+1]*f
	}
	d := z80 * math.Sqrt(n*p*(1-p))
	return math.Log(at(n*p+d)/at(n*p-d)) / (2 * z80)
}

// WindowNoise is the sampling noise, σ on the log scale, of a rate
// measured over a window from the counts of its equal sub-windows (batch
// means): their standard deviation over their mean, over √k. It is 0
// with fewer than 2 sub-windows or none counted.
func WindowNoise(counts []float64) float64 {
	k := float64(len(counts))
	if k < 2 {
		return 0
	}
	var sum, sq float64
	for _, c := range counts {
		sum += c
	}
	mean := sum / k
	if mean <= 0 {
		return 0
	}
	for _, c := range counts {
		sq += (c - mean) * (c - mean)
	}
	return math.Sqrt(sq/(k-1)) / mean / math.Sqrt(k)
}
