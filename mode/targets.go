package mode

import (
	"cmp"

	"github.com/toksweep/toksweep/client"
)

// Targets is what the time estimate reads of the prompts' output targets
// (each one's own max_tokens, or maxTokens): their mean (Timing.Tokens;
// maxTokens when there are no prompts), and whether they differ
// (Timing.Varied).
func Targets(prompts []client.Prompt, maxTokens int) (mean float64, varied bool) {
	if len(prompts) == 0 {
		return float64(maxTokens), false
	}
	sum := 0
	for _, p := range prompts {
		n := cmp.Or(p.MaxTokens, maxTokens)
		sum += n
		varied = varied || n != cmp.Or(prompts[0].MaxTokens, maxTokens)
	}
	return float64(sum) / float64(len(prompts)), varied
}
