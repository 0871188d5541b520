package app

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sim"
	"github.com/toksweep/toksweep/sim/fit"
	"github.com/toksweep/toksweep/sweep"
)

// loadedModel is a --sim-model file read: the model, and what summary.json
// records of it.
type loadedModel struct {
	m    fit.Model
	json report.SimModelJSON
}

// readSimModel reads the model file at path; an unreadable file or one
// that is not a model is a usage error, named by flag.
func readSimModel(path string) (*loadedModel, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, usagef("invalid --sim-model: %v", err)
	}
	m, err := fit.Read(bytes.NewReader(b))
	if err != nil {
		return nil, usagef("invalid --sim-model %s: %v", path, err)
	}
	sum := sha256.Sum256(b)
	return &loadedModel{m: m, json: report.SimModelJSON{File: filepath.Base(path), SHA256: hex.EncodeToString(sum[:]), Sim: m.Sim.Params()}}, nil
}

// loadSimModel sets the model in file path (toksweep fit's) in cfg: the
// --sim-model of serve-sim and of sweep --sim.
func loadSimModel(path string, cfg *sim.Config) error {
	lm, err := readSimModel(path)
	if err != nil {
		return err
	}
	lm.m.Apply(cfg)
	return nil
}

// extrapolation checks the model's poor fit (fit.Model.PoorFit) and what
// the run asks of it against the range it was fitted on: past either, the
// run is refused (a usage error naming the first failing level or bound),
// or, with --allow-extrapolation, marked (json.Caution, a line on stderr).
// A model set by hand records no range or levels and is not checked.
func (lm *loadedModel) extrapolation(a fit.Asked, allow bool, stderr io.Writer) error {
	var reasons []string
	for _, p := range lm.m.PoorFit() {
		reasons = append(reasons, "the fit is poor (the step model cannot represent the server there): "+p)
	}
	if c := lm.m.Calibration; c != nil {
		reasons = append(reasons, c.Check(a)...)
	}
	if len(reasons) == 0 {
		return nil
	}
	if !allow {
		return usagef("--sim-model %s refuses this run: %s (--allow-extrapolation runs it, marked as such)", lm.json.File, reasons[0])
	}
	lm.json.Caution = fit.Caution(reasons)
	fmt.Fprintf(stderr, "toksweep: caution: the model's predictions are %s\n", lm.json.Caution)
	return nil
}

// asked is what a sweep asks of the model: its levels (summary.json's
// config: a closed loop's, the sessions'), its rates (a trace replay's
// speeds are not checked), and its prompts' longest length (as the
// simulator counts them) and output target (a trace's own: promptOwner).
func (o *options) asked() fit.Asked {
	rc := o.runConfig()
	a := fit.Asked{Concurrency: rc.Levels, MaxOutput: o.MaxTokens}
	if rc.LevelsAuto {
		a.Concurrency = append(a.Concurrency, rc.AutoMax)
	}
	if rc.OpenLoop != nil && rc.Mode == sweep.RateMode { // a replay's are speeds, not req/s
		a.Rates = rc.OpenLoop.Rates
	}
	if po, ok := o.mode().(promptOwner); ok && po.PromptsFrom(&o.Line) != "" {
		a.MaxPrompt, a.MaxOutput = po.Lengths(&o.Line) // not the prompt set's, nor --max-tokens
		return a
	}
	if o.Work.Set != nil {
		for _, p := range o.Work.Set.Prompts {
			a.MaxPrompt = max(a.MaxPrompt, promptTokens(p))
			a.MaxOutput = max(a.MaxOutput, cmp.Or(p.MaxTokens, o.MaxTokens))
		}
	}
	return a
}

// promptTokens is p's length as the simulator counts it.
func promptTokens(p client.Prompt) int {
	switch {
	case len(p.TokenIDs) > 0:
		return len(p.TokenIDs)
	case len(p.Messages) > 0:
		var texts []string
		for _, m := range p.Messages {
			texts = append(texts, m.Content)
		}
		return sim.ChatPromptTokens(texts...)
	}
	return sim.PromptTokens(p.Text)
}

// serveModel sets serve-sim's --sim-model (none when path is empty) in
// cfg. serve-sim does not know the load it will be sent: it refuses only a
// poor or ill-conditioned fit, and says the range the model was fitted on.
func serveModel(path string, allow bool, cfg *sim.Config, stderr io.Writer) error {
	if path == "" {
		if allow {
			return usagef("--allow-extrapolation applies only to --sim-model")
		}
		return nil
	}
	lm, err := readSimModel(path)
	if err != nil {
		return err
	}
	if err := lm.extrapolation(fit.Asked{}, allow, stderr); err != nil {
		return err
	}
	if c := lm.m.Calibration; c != nil {
		fmt.Fprintf(stderr, "toksweep: --sim-model %s was fitted on up to %s in flight and prompts up to %d tokens: beyond %d× that, its answers are extrapolations\n",
			lm.json.File, trimFloat(math.Max(float64(c.MaxConcurrency), c.MaxInflight)), c.MaxPrompt, fit.LoadFactor)
	}
	lm.m.Apply(cfg)
	return nil
}

func trimFloat(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
