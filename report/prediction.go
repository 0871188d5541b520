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
