package preflight

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/workload"
)

// contextFits checks every prompt's estimated length plus its output target
// against the listed context length, limit. The first prompt's length is the
// pre-flight's prompt_tokens; the others are scaled from it by their text
// (workload.EstimateTokens), hence "~".
func contextFits(t Target, limit int, rec client.Record) error {
	body := t.Config.ExtraBody
	if _, set := body["max_tokens"]; limit <= 0 || set || body["max_completion_tokens"] != nil {
		return nil
	}
	prompts := t.Prompts
	if len(prompts) == 0 {
		return nil
	}
	scale := 1.0
	if first := workload.EstimateTokens(promptText(prompts[0])); rec.PromptTokens > 0 && first > 0 {
		scale = float64(rec.PromptTokens) / float64(first)
	}
	worst, worstN, worstM := -1, 0, 0
	for i, p := range prompts {
		n := int(float64(workload.EstimateTokens(promptText(p)))*scale + 0.5)
		if i == 0 && rec.PromptTokens > 0 {
			n = rec.PromptTokens
		}
		m := p.MaxTokens
		if m <= 0 {
			m = t.Config.MaxTokens
		}
		if n+m > limit && (worst < 0 || n+m > worstN+worstM) {
			worst, worstN, worstM = i, n, m
		}
	}
	if worst < 0 {
		return nil
	}
	return fmt.Errorf("pre-flight check failed, no load sent: %s (the server lists model %s with max_model_len %d)",
		contextAdvice(worstN, worstM, limit), t.Config.Model, limit)
}

// contextAdvice says which way a request overflows the context.
func contextAdvice(prompt, maxTokens, limit int) string {
	if prompt >= limit {
		return fmt.Sprintf("prompt ~%d > context %d: shorten the prompts", prompt, limit)
	}
	return fmt.Sprintf("prompt ~%d + max_tokens %d > context %d: lower --max-tokens", prompt, maxTokens, limit)
}

func promptText(p client.Prompt) string {
	if len(p.Messages) == 0 {
		return p.Text
	}
	var b strings.Builder
	for _, m := range p.Messages {
		b.WriteString(m.Content)
		b.WriteByte('\n')
	}
	return b.String()
}

var (
	ctxLimitRe  = regexp.MustCompile(`(?i)maximum context length is (\d+)`)
	ctxPromptRe = regexp.MustCompile(`(?i)(\d+) in the (?:messages|prompt)|(\d+) input tokens|prompt has (\d+)|messages resulted in (\d+)`)
	ctxOutputRe = regexp.MustCompile(`(?i)(\d+) in the completion|max_completion_tokens' is too large: (\d+)|max_tokens' is too large: (\d+)`)
)

// ContextHint reads a refusal of a measured request the way the
// pre-flight reads its own (contextHint): "" when msg is not a
// context-length refusal, else what to change, with the numbers.
func ContextHint(msg string, maxTokens int) string { return contextHint(msg, maxTokens, false) }

// contextHint reads a server's context-length refusal (vLLM's and
// llm-d-inference-sim's wording) and says what to change, with the
// numbers: "prompt ~10 + max_tokens 2048 > context 1024: lower
// --max-tokens". maxTokens stands in when the message does not say the
// output length, or always for the pre-flight, whose own output is only
// Output's. "" when msg is not a context-length refusal.
func contextHint(msg string, maxTokens int, preflight bool) string {
	limit := firstInt(ctxLimitRe, msg)
	if limit <= 0 {
		return ""
	}
	prompt, out := firstInt(ctxPromptRe, msg), firstInt(ctxOutputRe, msg)
	if out <= 0 || preflight {
		out = maxTokens
	}
	if prompt <= 0 {
		return fmt.Sprintf("the prompt + max_tokens %d > context %d: lower --max-tokens or shorten the prompts", out, limit)
	}
	return contextAdvice(prompt, out, limit)
}

// firstInt is the first non-empty group of re's first match in s; 0 if none.
func firstInt(re *regexp.Regexp, s string) int {
	m := re.FindStringSubmatch(s)
	for _, g := range m[min(1, len(m)):] {
		if n, err := strconv.Atoi(g); err == nil {
			return n
		}
	}
	return 0
}
