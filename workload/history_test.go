package workload

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A session's history is cut, oldest turns first and whole, to
// MaxHistoryTokens: replies of 1 MB a turn no longer grow a turn's request
// without bound (issue 25, item 11). Under the bound nothing is cut.
func TestHistoryIsBoundedOldestFirst(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("r", 300_000) // ~75k tokens a reply
	users := []string{"u0", "u1", "u2", "u3", "u4", "u5"}
	s := &Session{conv: Conversation{Users: users}, turns: len(users)}
	replies := []string{big, big, big, big, big}
	p := s.Prompt(5, replies)
	// 3 replies (900 kB) fit in 1 MiB of history; 4 do not.
	if n := len(p.Messages); n != 2*3+1 || p.Messages[0].Content != "u2" || p.Messages[n-1].Content != "u5" {
		t.Fatalf("%d messages, first %q: want turns 2 to 4 and then u5", n, p.Messages[0].Content)
	}
	small := s.Prompt(3, []string{"a", "b", "c"})
	if len(small.Messages) != 7 || small.Messages[0].Content != "u0" {
		t.Errorf("a small history was cut: %d messages", len(small.Messages))
	}
}

// A dataset conversation of more than MaxTurns turns is refused in one
// line (200 000 turns were accepted).
func TestConversationTurnsAreBounded(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "long.jsonl")
	turns := make([]string, MaxTurns+1)
	for i := range turns {
		turns[i] = `"hi"`
	}
	if err := os.WriteFile(path, []byte(`{"turns":[`+strings.Join(turns, ",")+`]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := loadSessions(Options{Dataset: path, MultiTurn: true})
	if err == nil || !strings.Contains(err.Error(), "has 1001 turns, more than 1000") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a 1001-turn conversation: %v", err)
	}
}
