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

// samplingNoise is each graded figure's σ on the log scale over
// resamples of the level's measured requests in blocks of as many
// consecutive ones (by start) as were in flight, so that requests that
// shared batches are drawn together: (p90 − p10) / 2.563.
func samplingNoise(l *sweep.Level, s report.LevelStats, figs map[string]float64) map[string]float64 {
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
			if base := figs[name]; base > 0 && v > 0 {
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
