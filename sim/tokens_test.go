package sim

import (
	"slices"
	"strings"
	"testing"
)

// The token sequences have exactly the counted lengths, so the block
// arithmetic agrees with usage.prompt_tokens.
func TestTokenIDsMatchCounts(t *testing.T) {
	texts := []string{"", "hello", "one two three", words(7), words(10), words(333), "  spaced\tout\nwords  "}
	for _, a := range texts {
		if got, want := len(textIDs(a)), PromptTokens(a); got != want {
			t.Errorf("textIDs(%q): %d ids, PromptTokens %d", a, got, want)
		}
		for _, b := range texts {
			ids := chatMessageIDs([]string{"system", "user"}, []string{a, b})
			if got, want := len(ids), ChatPromptTokens(a, b); got != want {
				t.Errorf("chat [%q %q]: %d ids, ChatPromptTokens %d", a, b, len(ids), want)
			}
		}
	}
}

// A conversation's next turn starts with the previous turn's tokens, so its
// block hashes start with the previous turn's; a different role or word
// changes every hash from its block on.
func TestTokenIDsSharePrefixes(t *testing.T) {
	turn1 := chatMessageIDs([]string{"user"}, []string{words(50)})
	turn2 := chatMessageIDs([]string{"user", "assistant", "user"}, []string{words(50), words(30), "and then?"})
	if !slices.Equal(turn2[:len(turn1)], turn1) {
		t.Fatal("turn 2's tokens do not start with turn 1's")
	}
	h1, h2 := blockHashes(turn1), blockHashes(turn2)
	if len(h1) != len(turn1)/BlockSize || !slices.Equal(h2[:len(h1)], h1) {
		t.Fatalf("turn 2's %d block hashes do not start with turn 1's %d", len(h2), len(h1))
	}
	sys := chatMessageIDs([]string{"system"}, []string{words(50)})
	if hs := blockHashes(sys); hs[0] == h1[0] {
		t.Error("a different role gives the same first block")
	}
	changed := slices.Clone(turn1)
	changed[40]++ // in block 2
	hc := blockHashes(changed)
	if hc[0] != h1[0] || hc[1] != h1[1] || hc[2] == h1[2] || hc[3] == h1[3] {
		t.Error("a changed token must change its block's hash and every later one, and no earlier one")
	}
}

// A reply's text, sent back after its prompt, reads as exactly the tokens
// that were generated: the same count (one more only when the reply stops
// inside a two-token word) and the same ids as a longer reply's. It holds at
// every place in a conversation (the prompt's word count g0 decides which
// words are cut in two); the stream's pieces add up to the text, and none is
// empty.
func TestReplyReadsBackAsItsTokens(t *testing.T) {
	t.Parallel() // pure computation (2400 replies tokenized), no clock
	split := 0
	for g0 := 1; g0 <= 40; g0++ {
		prompt := words(g0)
		p := len(textIDs(prompt))
		for target := 1; target <= 60; target++ {
			reply := fillerText(g0, 0, target)
			var pieces strings.Builder
			for i := range target {
				s := fillerText(g0, i, i+1)
				if s == "" {
					t.Fatalf("g0 %d: token %d has no text", g0, i)
				}
				pieces.WriteString(s)
			}
			if pieces.String() != reply {
				t.Fatalf("g0 %d target %d: the pieces %q are not the text %q", g0, target, pieces.String(), reply)
			}
			extra := 0
			if !strings.HasSuffix(reply, " ") {
				extra = 1 // a first piece reads as a word of its own
				split++
			}
			back := textIDs(prompt + " " + reply)
			if len(back) != p+target+extra {
				t.Fatalf("g0 %d target %d: the reply reads back as %d tokens, want %d", g0, target, len(back)-p, target+extra)
			}
			longer := textIDs(prompt + " " + fillerText(g0, 0, target+5))
			if n := p + target - extra; !slices.Equal(back[:n], longer[:n]) {
				t.Fatalf("g0 %d target %d: the reply's ids depend on where it stops", g0, target)
			}
		}
	}
	if split == 0 {
		t.Error("no reply stopped inside a word: the pieces were not exercised")
	}
}
