package report

// PredictionJSON is one level of a --sim-model run with its figures' 80%
// prediction intervals (docs/metrics.md, "The fitted model").
type PredictionJSON struct {
	Level   string            `json:"level"`
	Figures []PredictedFigure `json:"figures"`
}

// PredictedFigure is one figure predicted, by its levels.csv name, and
// its 80% interval.
type PredictedFigure struct {
	Name      string  `json:"name"`
	Predicted float64 `json:"predicted"`
	Lo        float64 `json:"lo"`
	Hi        float64 `json:"hi"`
}

// PredictionRow is one predicted figure as report.html's prediction table
// shows it: its level, the prediction with its interval, and the measured
// value of the same level and figure where the grading has one
// (HasMeasured), with whether the interval holds it.
type PredictionRow struct {
	Level string
	PredictedFigure
	HasMeasured, Inside bool
	Measured            float64
}

// PredictionRows are s's predictions, level by level in their order, each
// joined to its grading's measurement.
func PredictionRows(s Summary) []PredictionRow {
	measured := map[[2]string]float64{}
	for _, g := range s.Grading {
		for _, f := range g.Figures {
			measured[[2]string{g.Level, f.Name}] = f.Measured
		}
	}
	var out []PredictionRow
	for _, p := range s.Predictions {
		for _, f := range p.Figures {
			r := PredictionRow{Level: p.Level, PredictedFigure: f}
			if m, ok := measured[[2]string{p.Level, f.Name}]; ok {
				r.HasMeasured, r.Measured, r.Inside = true, m, f.Lo <= m && m <= f.Hi
			}
			out = append(out, r)
		}
	}
	return out
}
