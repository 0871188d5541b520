package client

import "github.com/toksweep/toksweep/internal/tokcount"

// estimate is toksweep's own count of the prompt t sends for p, by the
// rule its simulator charges (tokcount; a prompt of token ids counts its
// ids; 0 when --extra-body sets the prompt itself): Record.PromptEstimate,
// which the server's usage.prompt_tokens is held against (a fitted
// model's prompt-token scale).
func (t *bodyTemplate) estimate(p Prompt) int {
	switch {
	case !t.sendPrompt:
		return 0
	case t.api == Completions && len(p.TokenIDs) > 0:
		return len(p.TokenIDs)
	case t.api == Completions && len(p.Messages) > 0:
		return tokcount.Prompt(flatten(p.Messages))
	case t.api == Completions:
		return tokcount.Prompt(p.Text)
	case len(p.Messages) > 0:
		words := 0
		for _, m := range p.Messages {
			words += tokcount.Words(m.Content)
		}
		return tokcount.FromChat(words, len(p.Messages))
	default:
		return tokcount.Chat(p.Text)
	}
}
