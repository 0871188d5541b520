package fit

import (
	"fmt"

	"github.com/toksweep/toksweep/sim"
)

// promptScaleName is the counted parameter a model's PromptTokenScale is.
const promptScaleName = "prompt_token_scale"

// minScaled is how many requests must carry both counts for the scale to
// count as measured.
const minScaled = 10

// promptScale is the server's prompt tokens over toksweep's own count of
// the same prompts: Σ usage.prompt_tokens / Σ prompt_estimate over the
// successful requests that carry both (client.Record.PromptEstimate). The
// fitted costs are per server token (the rows count usage.prompt_tokens),
// and the simulator counts a prompt by toksweep's rule, so the simulator
// serving the model multiplies its count by this (sim.Config.
// PromptTokenScale). Not identified (1) when fewer than minScaled requests
// carry both: runs saved before prompt_estimate was recorded, or a
// server that reports no usage.
func promptScale(levels []Level, m *Model) Param {
	var server, est float64
	n := 0
	for _, l := range levels {
		for i := range l.Records {
			r := &l.Records[i]
			if r.OK() && r.PromptTokens > 0 && r.PromptEstimate > 0 {
				server += float64(r.PromptTokens)
				est += float64(r.PromptEstimate)
				n++
			}
		}
	}
	p := Param{Name: promptScaleName, Unit: "×", Doc: "the server's prompt tokens per token of toksweep's count", Value: 1, InSim: true}
	if n < minScaled {
		m.NotIdentified = append(m.NotIdentified, fmt.Sprintf(
			"%d requests carry both the server's prompt_tokens and toksweep's count of their prompt (prompt_estimate, recorded since this release): the prompt-token scale is not identified; the model keeps 1 (the simulator counts prompts as toksweep does); re-run the levels, or use fit --url", n))
		return p
	}
	v := min(max(server/est, sim.MinPromptTokenScale), sim.MaxPromptTokenScale)
	p.Value, p.Identified = v, true
	p.Counted = fmt.Sprintf("counted: %d requests, %.0f prompt tokens / %.0f by toksweep's count", n, server, est)
	return p
}
