package sim

import (
	"slices"
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
