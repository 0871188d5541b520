package tokcount

import (
	"strings"
	"testing"
)

// Words is strings.Fields' count, Unicode spaces included; the counts
// are the rule's exact figures.
func TestCounts(t *testing.T) {
	for _, s := range []string{"", "  ", "one", " a  b\tc\n", "héllo wörld", "a\u00a0b\u2003c", "x\u3000y z"} {
		if got, want := Words(s), len(strings.Fields(s)); got != want {
			t.Errorf("Words(%q) = %d, want %d", s, got, want)
		}
	}
	if FromWords(10) != 13 || FromWords(1) != 2 || FromWords(0) != 0 {
		t.Errorf("FromWords 10, 1, 0 = %d, %d, %d; want 13, 2, 0", FromWords(10), FromWords(1), FromWords(0))
	}
	if Prompt("") != 1 || Prompt("one two three four five six seven eight nine ten") != 13 {
		t.Errorf("Prompt: %d and %d, want 1 and 13", Prompt(""), Prompt("one two three four five six seven eight nine ten"))
	}
	if got := Chat("a b c d e f g h i j", "k"); got != 15+2*ChatMessageOverhead {
		t.Errorf("Chat = %d, want ceil(1.3 × 11) + 2 × %d = %d", got, ChatMessageOverhead, 15+2*ChatMessageOverhead)
	}
}
