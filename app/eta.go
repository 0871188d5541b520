package app

import (
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/sim"
)

// newTiming is the time estimate's inputs of the checked command line
// and its prompts, with the chosen mode's Estimate, the pre-flight's
// speed and, under --sim, the preset's (or --sim-model's) batch capacity
// and step time.
func newTiming(o *options, prompts []client.Prompt) mode.Timing {
	p := mode.Timing{Est: o.mode().Estimate(&o.Line), Repeat: max(o.Repeat, 1), Requests: o.Requests, Warmup: o.Warmup, Duration: o.Duration}
	p.Tokens, p.Varied = mode.Targets(prompts, o.MaxTokens)
	p.TTFT, p.PerToken = o.check.Speed()
	if cfg, err := sim.Preset(o.SimPreset); o.Sim && err == nil {
		if o.Flags.SimModel != "" {
			_ = loadSimModel(o.Flags.SimModel, &cfg) // startSim has read it already
		}
		p.Slots, p.Step = cfg.MaxNumSeqs, simStep(cfg, p.Tokens)
	}
	return p
}

// simStep is the simulator's decode step time with b sequences running,
// each with a context of about half its output (sim.Config's step model;
// prompts add little at the presets' costs).
func simStep(cfg sim.Config, tokens float64) func(b int) time.Duration {
	return func(b int) time.Duration {
		ctx := time.Duration(float64(b) * tokens / 2 * float64(cfg.DecodePerCtxToken))
		return cfg.DecodeBase + time.Duration(b)*cfg.DecodePerSeq + ctx
	}
}
