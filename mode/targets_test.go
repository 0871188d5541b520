package mode

import (
	"testing"

	"github.com/toksweep/toksweep/client"
)

// Targets: a prompt's own max_tokens, else --max-tokens; the mean of 100,
// 300 and 200 (the flag's) is 200, and they differ; the same target
// throughout is not varied; no prompts is the flag's.
func TestTargets(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		prompts []client.Prompt
		max     int
		mean    float64
		varied  bool
	}{
		{[]client.Prompt{{MaxTokens: 100}, {MaxTokens: 300}, {}}, 200, 200, true},
		{[]client.Prompt{{}, {MaxTokens: 64}}, 64, 64, false},
		{[]client.Prompt{{MaxTokens: 10}, {MaxTokens: 10}}, 0, 10, false},
		{[]client.Prompt{{MaxTokens: 10}, {}}, 0, 5, true},
		{nil, 128, 128, false},
	} {
		if mean, varied := Targets(tc.prompts, tc.max); mean != tc.mean || varied != tc.varied {
			t.Errorf("Targets(%v, %d) = %v, %v; want %v, %v", tc.prompts, tc.max, mean, varied, tc.mean, tc.varied)
		}
	}
}
