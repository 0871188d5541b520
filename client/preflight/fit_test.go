package preflight

import "testing"

// contextHint reads vLLM's and llm-d-inference-sim's context-length
// refusals; the pre-flight's own output is never the hint's.
func TestContextHint(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		msg       string
		max       int
		preflight bool
		want      string
	}{
		{"This model's maximum context length is 1024 tokens. However, you requested 2058 tokens (10 in the messages, 2048 in the completion). Please reduce the length of the messages or completion (code 400)",
			99, false, "prompt ~10 + max_tokens 2048 > context 1024: lower --max-tokens"},
		{"This model's maximum context length is 1024 tokens. However, you requested 1034 tokens (1026 in the messages, 8 in the completion).",
			2048, true, "prompt ~1026 > context 1024: shorten the prompts"},
		{"'max_tokens' is too large: 4000. This model's maximum context length is 4096 tokens and your request has 120 input tokens (4000 > 4096 - 120).",
			0, false, "prompt ~120 + max_tokens 4000 > context 4096: lower --max-tokens"},
		{"This model's maximum context length is 512 tokens.", 600, false, "the prompt + max_tokens 600 > context 512: lower --max-tokens or shorten the prompts"},
		{"The model `nope` does not exist.", 600, false, ""},
	} {
		if got := contextHint(tc.msg, tc.max, tc.preflight); got != tc.want {
			t.Errorf("contextHint(%q) = %q, want %q", tc.msg, got, tc.want)
		}
		if got := ContextHint(tc.msg, tc.max); !tc.preflight && got != tc.want {
			t.Errorf("ContextHint(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
}
