// Package tokcount owns toksweep's rule of thumb for counting tokens
// without a tokenizer: ceil(1.3 × whitespace-separated words), plus
// ChatMessageOverhead per chat message. The simulator charges by it, the
// workload sizes prompts by it, and the client records it beside the
// server's own count (a fitted model's prompt-token scale), so that the
// three agree by construction.
package tokcount

import (
	"unicode"
	"unicode/utf8"
)

// ChatMessageOverhead is the number of prompt tokens each chat message adds
// on top of its content, standing in for the role and the chat template's
// markers.
const ChatMessageOverhead = 4

// FromWords is ceil(1.3 × words) in integer arithmetic, so that 10 words
// give exactly 13 tokens.
func FromWords(words int) int { return (words*13 + 9) / 10 }

// Prompt is the count of a plain prompt: FromWords of its words, at least 1.
func Prompt(text string) int { return max(1, FromWords(Words(text))) }

// Chat is the count of a chat conversation given its message contents:
// FromWords of the words over all contents plus ChatMessageOverhead per
// message, at least 1.
func Chat(contents ...string) int {
	words := 0
	for _, c := range contents {
		words += Words(c)
	}
	return FromChat(words, len(contents))
}

// FromChat is Chat's count of messages holding words in all.
func FromChat(words, messages int) int {
	return max(1, FromWords(words)+ChatMessageOverhead*messages)
}

// Words is len(strings.Fields(s)), without the slice.
func Words(s string) int {
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
