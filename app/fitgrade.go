package app

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sim"
	"github.com/toksweep/toksweep/sim/fit"
	"github.com/toksweep/toksweep/sweep"
)

// sameWorkload is how far a predicted level's mean prompt and output
// lengths may be from a measured one's for the two to be the same level.
const sameWorkload = 0.25

// measuredOf is level l's figures, s its summary, as the model keeps them
// (fit.Measured): its key, its workload (the means over its measured
// successful requests) and the graded figures that have a value.
func measuredOf(l *sweep.Level, s report.LevelStats) fit.Measured {
	k := s.Key()
	m := fit.Measured{Level: report.LevelName(s), Mode: k.Mode, Concurrency: k.Concurrency, Load: k.Load,
		InflightMean: finite(s.InflightMean), RequestsPerS: finite(s.RequestsPerS), Figures: map[string]float64{}}
	n := 0
	for r := range l.All() {
		if r.OK() && !r.Warmup {
			m.PromptMean += float64(r.PromptTokens)
			m.OutputMean += float64(r.OutputTokens())
			n++
		}
	}
	if n > 0 {
		m.PromptMean /= float64(n)
		m.OutputMean /= float64(n)
	}
	ms := func(d time.Duration) float64 {
		if d == report.NoSample {
			return math.NaN()
		}
		return float64(d) / float64(time.Millisecond)
	}
	for i, v := range []float64{ms(s.TTFTP50), ms(s.TTFTP95), ms(s.TPOTP50), s.DecodeTPSP50, s.AggregateOutputTPS} {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			m.Figures[fit.GradedFigures[i]] = v
		}
	}
	return m
}

func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// grader grades a --sim-model sweep's levels, as they end, against the
// levels the model was fitted on.
type grader struct {
	model    fit.Model
	measured []fit.Measured
	other    []string // levels measured at the same load with another workload
}

// grading records the --sim-model in sum and returns its grader; nil
// without a model.
func (o *options) grading(sum *report.Summary) *grader {
	if o.simModel == nil {
		return nil
	}
	sum.SimModel = &o.simModel.json
	return &grader{model: o.simModel.m, measured: o.simModel.m.Measured}
}

// add grades level l (s its summary) into sum.Grading when the model
// measured the same level: the same mode and load, and prompts and
// outputs of the same mean length within sameWorkload.
func (g *grader) add(l *sweep.Level, s report.LevelStats, sum *report.Summary) {
	if g == nil {
		return
	}
	g.predict(l, s, sum)
	p := measuredOf(l, s)
	sameLoad := false
	for _, m := range g.measured {
		if m.Mode != p.Mode || m.Concurrency != p.Concurrency || m.Load != p.Load {
			continue
		}
		if near(p.PromptMean, m.PromptMean) && near(p.OutputMean, m.OutputMean) {
			sum.Grading = append(sum.Grading, gradeOf(p, m))
			return
		}
		sameLoad = true
	}
	if sameLoad {
		g.other = append(g.other, p.Level)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= sameWorkload*math.Max(math.Abs(b), 1) }

// gradeOf is prediction p against measurement m, figure by figure: each
// figure both have, with (p − m) / m (null when m is 0).
func gradeOf(p, m fit.Measured) report.GradeJSON {
	g := report.GradeJSON{Level: p.Level}
	for _, name := range fit.GradedFigures {
		pv, ok1 := p.Figures[name]
		mv, ok2 := m.Figures[name]
		if !ok1 || !ok2 {
			continue
		}
		f := report.GradeFigure{Name: name, Predicted: pv, Measured: mv}
		if mv != 0 {
			e := (pv - mv) / mv
			f.RelError = &e
		}
		g.Figures = append(g.Figures, f)
	}
	return g
}

// lines are the grading's console lines: one per graded level, the
// levels measured with another workload, and the caution of a run past
// the calibration.
func (g *grader) lines(sum *report.Summary) []string {
	if g == nil {
		return nil
	}
	out := predictionLines(sum)
	for _, gr := range sum.Grading {
		var parts []string
		for _, f := range gr.Figures {
			e := "-"
			if f.RelError != nil {
				e = fmt.Sprintf("%+.1f%%", 100**f.RelError)
			}
			parts = append(parts, f.Name+" "+e)
		}
		out = append(out, fmt.Sprintf("Model vs measured at %s: %s.", gr.Level, strings.Join(parts, ", ")))
	}
	if len(sum.Grading) == 0 {
		out = append(out, fmt.Sprintf("Model vs measured: no level of this run was measured in the model's %d levels (same mode, load and mean lengths): nothing graded.", len(g.measured)))
	}
	if len(g.other) > 0 {
		out = append(out, fmt.Sprintf("Not graded: %s measured only with prompts or outputs over %.0f%% longer or shorter.", strings.Join(g.other, ", "), 100*sameWorkload))
	}
	if c := sum.SimModel.Caution; c != "" {
		out = append(out, "Caution: the predictions are "+c+".")
	}
	return out
}

// loadModel reads --sim-model into cfg, refusing (or, with
// --allow-extrapolation, marking) a run past the model's calibration.
func (o *options) loadModel(cfg *sim.Config, stderr io.Writer) error {
	f := &o.Flags
	if f.SimModel == "" {
		if f.AllowExtrapolation {
			return usagef("--allow-extrapolation applies only to --sim-model")
		}
		return nil
	}
	lm, err := readSimModel(f.SimModel)
	if err != nil {
		return err
	}
	if err := lm.extrapolation(o.asked(), f.AllowExtrapolation, stderr); err != nil {
		return err
	}
	lm.m.Apply(cfg)
	o.simModel = lm
	return nil
}
