package client

import (
	"unicode"
	"unicode/utf8"
)

// The rule toksweep counts a prompt's tokens by when it has no tokenizer,
// the one its simulator charges (sim.PromptTokens, sim.ChatPromptTokens):
// ceil(1.3 × whitespace-separated words), plus chatMessageTokens per chat
// message, at least 1. A prompt of token ids counts its ids.
const chatMessageTokens = 4

// estimate is toksweep's own count of the prompt t sends for p (0 when
// --extra-body sets the prompt itself): Record.PromptEstimate, which the
// server's usage.prompt_tokens is held against (a fitted model's
// prompt-token scale).
func (t *bodyTemplate) estimate(p Prompt) int {
	switch {
	case !t.sendPrompt:
		return 0
	case t.api == Completions && len(p.TokenIDs) > 0:
		return len(p.TokenIDs)
	case t.api == Completions && len(p.Messages) > 0:
		return max(1, wordTokens(countWords(flatten(p.Messages))))
	case t.api == Completions:
		return max(1, wordTokens(countWords(p.Text)))
	case len(p.Messages) > 0:
		words := 0
		for _, m := range p.Messages {
			words += countWords(m.Content)
		}
		return max(1, wordTokens(words)+chatMessageTokens*len(p.Messages))
	default:
		return max(1, wordTokens(countWords(p.Text))+chatMessageTokens)
	}
}

// wordTokens is ceil(1.3 × words) in integer arithmetic.
func wordTokens(words int) int { return (words*13 + 9) / 10 }

// countWords is len(strings.Fields(s)), without the slice.
func countWords(s string) int {
	n, in := 0, false
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		space := unicode.IsSpace(r)
		if !space && !in {
			n++
		}
		in = !space
		i += size
	}
	return n
}
