package report

// SimModelJSON is the fitted model a --sim run served (sweep --sim
// --sim-model), so that the run says what it simulated.
type SimModelJSON struct {
	File   string             `json:"file"`   // the model file's base name
	SHA256 string             `json:"sha256"` // of the file's bytes
	Sim    map[string]float64 `json:"sim"`    // the parameters it set (model.json's sim block)
	// Caution is set when --allow-extrapolation ran a load, prompt or fit
	// the model refuses by default: each bound the run went past.
	Caution string `json:"caution,omitempty"`
}

// GradeJSON is one level predicted by the model against the measurement
// of the same level the model was fitted on (docs/metrics.md, "Grading").
type GradeJSON struct {
	Level   string        `json:"level"`
	Figures []GradeFigure `json:"figures"`
}

// GradeFigure is one figure's prediction, measurement and relative error
// (predicted − measured) / measured; RelError is null when the measured
// value is 0.
type GradeFigure struct {
	Name      string   `json:"name"` // the levels.csv column
	Predicted float64  `json:"predicted"`
	Measured  float64  `json:"measured"`
	RelError  *float64 `json:"rel_error"`
}
