package app

import (
	"cmp"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/sim"
)

// newTiming is the time estimate's inputs of the checked command line
// and its prompts, with the chosen mode's Estimate.
func newTiming(o *options, prompts []client.Prompt) mode.Timing {
	p := mode.Timing{Est: o.mode().Estimate(&o.Line), Repeat: max(o.Repeat, 1), Requests: o.Requests, Warmup: o.Warmup, Duration: o.Duration,
		Tokens: meanTarget(prompts, o.MaxTokens), Varied: variedTargets(prompts, o.MaxTokens)}
	if o.check.measured {
		p.TTFT, p.PerToken = preflightSpeed(o.check.rec)
	}
	if cfg, err := sim.Preset(o.SimPreset); o.Sim && err == nil {
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

// preflightSpeed is the pre-flight request's time to first token and time
// per output token after it (0, 0 when it streamed fewer than two chunks).
// When the server stamped its sends (the simulator), the time per token is
// the stamps': a busy client may read the short stream in one burst.
func preflightSpeed(r client.Record) (ttft, perToken time.Duration) {
	n := len(r.ChunkAt)
	if n < 2 || r.FirstToken <= r.Start {
		return 0, 0
	}
	first, last := r.ChunkAt[0], r.ChunkAt[n-1]
	if len(r.SendLag) == n {
		first, last = first-r.SendLag[0], last-r.SendLag[n-1]
	}
	out := max(r.OutputTokens(), n)
	return r.FirstToken - r.Start, (last - first) / time.Duration(out-1)
}

// variedTargets reports whether the prompts' output targets differ.
func variedTargets(prompts []client.Prompt, maxTokens int) bool {
	for _, p := range prompts {
		if cmp.Or(p.MaxTokens, maxTokens) != cmp.Or(prompts[0].MaxTokens, maxTokens) {
			return true
		}
	}
	return false
}

// meanTarget is the mean output target of the prompts: each one's own
// max_tokens, or maxTokens.
func meanTarget(prompts []client.Prompt, maxTokens int) float64 {
	if len(prompts) == 0 {
		return float64(maxTokens)
	}
	sum := 0
	for _, p := range prompts {
		sum += cmp.Or(p.MaxTokens, maxTokens)
	}
	return float64(sum) / float64(len(prompts))
}
