package app

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/toksweep/toksweep/client"
	ipct "github.com/toksweep/toksweep/internal/pct"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sim/fit"
	"github.com/toksweep/toksweep/sweep"
)

// noiseResamples is how many block resamples of a level measure its
// figures' sampling noise.
const noiseResamples = 40

// predict records level l's (s its summary) figures, as the model
// predicted them, with their 80% intervals (fit.Model.Bands) in
// sum.Predictions.
func (g *grader) predict(l *sweep.Level, s report.LevelStats, sum *report.Summary) {
	if g == nil {
		return
	}
	p := measuredOf(l, s)
	at := fit.Point{Batch: s.InflightMean, Prompt: p.PromptMean, Output: p.OutputMean}
	bands := g.model.Bands(at, p.Figures, samplingNoise(l, s, p.Figures))
	pr := report.PredictionJSON{Level: p.Level}
	for _, name := range fit.GradedFigures {
		if b, ok := bands[name]; ok {
			pr.Figures = append(pr.Figures, report.PredictedFigure{Name: name, Predicted: b.Predicted, Lo: b.Lo, Hi: b.Hi})
		}
	}
	sum.Predictions = append(sum.Predictions, pr)
}

// samplingNoise is each graded figure's σ on the log scale as measured
// from the level's own requests: a percentile's is the larger of its
// distribution-free rank interval's (fit.RankNoise, as if requests were
// independent) and its spread over resamples of the level in blocks of
// as many consecutive requests as were in flight (blockNoise: requests
// that shared batches drawn together); the aggregate's is its batch
// means' over windowParts equal parts of the steady window
// (fit.WindowNoise), a rate over time that resampling requests would
// count twice or not at all.
func samplingNoise(l *sweep.Level, s report.LevelStats, figs map[string]float64) map[string]float64 {
	out := blockNoise(l, s, figs)
	if out == nil {
		return nil
	}
	for name, xs := range perRequest(l) {
		slices.Sort(xs)
		out[name] = max(out[name], fit.RankNoise(xs, percentileOf[name]))
	}
	out["aggregate_output_tps"] = fit.WindowNoise(windowCounts(l, s))
	return out
}

// percentileOf is each graded percentile's p.
var percentileOf = map[string]float64{"ttft_p50_ms": 0.5, "ttft_p95_ms": 0.95, "tpot_p50_ms": 0.5, "decode_tps_p50": 0.5}

// perRequest is each graded percentile's per-request values over the
// level's measured successful requests (those that have one).
func perRequest(l *sweep.Level) map[string][]float64 {
	out := map[string][]float64{}
	for r := range l.All() {
		if r.Warmup || !r.OK() || len(r.ChunkAt) == 0 {
			continue
		}
		ttft := float64(report.RequestTTFT(r))
		out["ttft_p50_ms"] = append(out["ttft_p50_ms"], ttft)
		out["ttft_p95_ms"] = append(out["ttft_p95_ms"], ttft)
		if v := float64(report.RequestTPOT(r)); v > 0 {
			out["tpot_p50_ms"] = append(out["tpot_p50_ms"], v)
		}
		if v := report.RequestDecodeTPS(r); v > 0 && !math.IsNaN(v) && !math.IsInf(v, 0) {
			out["decode_tps_p50"] = append(out["decode_tps_p50"], v)
		}
	}
	return out
}

// windowParts is how many equal parts of the steady window the
// aggregate's batch means count.
const windowParts = 10

// windowCounts is the output tokens of the level's measured successful
// requests in each of windowParts equal parts of its steady window (each
// chunk its request's tokens per chunk, as the aggregate counts them);
// nil without a window.
func windowCounts(l *sweep.Level, s report.LevelStats) []float64 {
	ws, width := s.WindowStart, (s.WindowEnd-s.WindowStart)/windowParts
	if width <= 0 {
		return nil
	}
	out := make([]float64, windowParts)
	for r := range l.All() {
		if r.Warmup || !r.OK() {
			continue
		}
		w := float64(r.OutputTokens()) / float64(max(1, len(r.ChunkAt)))
		for _, at := range r.ChunkAt {
			if t := r.Start + at; t >= ws && t < ws+windowParts*width {
				out[(t-ws)/width] += w
			}
		}
	}
	return out
}

// blockNoise is each percentile's σ on the log scale over noiseResamples
// resamples of the level's measured requests in blocks of as many
// consecutive ones (by start) as were in flight: (p90 − p10) / 2.563.
func blockNoise(l *sweep.Level, s report.LevelStats, figs map[string]float64) map[string]float64 {
	var measured, rest []client.Record
	for r := range l.All() {
		if r.Warmup {
			rest = append(rest, *r)
		} else {
			measured = append(measured, *r)
		}
	}
	if len(measured) < 2 {
		return nil
	}
	slices.SortFunc(measured, func(a, b client.Record) int { return int(a.Start - b.Start) })
	block := min(len(measured), max(1, int(math.Round(s.InflightMean))))
	rng := rand.New(rand.NewPCG(uint64(len(measured)), 0x401e))
	logs := map[string][]float64{}
	for range noiseResamples {
		recs := slices.Clone(rest)
		for len(recs)-len(rest) < len(measured) {
			i := rng.IntN(len(measured) - block + 1)
			recs = append(recs, measured[i:i+block]...)
		}
		rl := *l
		rl.Records, rl.Source = recs[:len(rest)+len(measured)], nil
		for name, v := range measuredOf(&rl, report.Summarize(rl, report.Settings{})).Figures {
			if base := figs[name]; base > 0 && v > 0 && percentileOf[name] > 0 {
				logs[name] = append(logs[name], math.Log(v/base))
			}
		}
	}
	out := map[string]float64{}
	for name, xs := range logs {
		slices.Sort(xs)
		out[name] = (ipct.Percentile(xs, 90) - ipct.Percentile(xs, 10)) / 2.563
	}
	return out
}

// predictionLines are the console's lines of the predicted levels: each
// figure with its 80% interval.
func predictionLines(sum *report.Summary) []string {
	var out []string
	for _, p := range sum.Predictions {
		var parts []string
		for _, f := range p.Figures {
			parts = append(parts, fmt.Sprintf("%s %s (%s–%s)", f.Name, trimFloat(f.Predicted), trimFloat(f.Lo), trimFloat(f.Hi)))
		}
		out = append(out, fmt.Sprintf("Predicted at %s, 80%% intervals: %s.", p.Level, strings.Join(parts, ", ")))
	}
	return out
}
