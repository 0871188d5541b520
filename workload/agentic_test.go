package workload

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
)

// An agentic line: turns as strings or objects, a turn's wait_ms and
// max_tokens (the line's max_tokens fills the others), sub-sessions nested
// with their own waits; sub-sessions take the line's ID.
func TestReadAgenticConversation(t *testing.T) {
	in := `{"turns": ["a", {"user": "b", "wait_ms": 1.5, "max_tokens": 9, "parallel": true,
	  "subs": [{"turns": [{"user": "s1", "wait_ms": 0}]}, {"turns": ["s2", "s3"]}]}, {"user": "c", "wait_ms": 20}], "max_tokens": 4}`
	cs, err := ReadJSONLConversations(strings.NewReader(strings.ReplaceAll(in, "\n", "")), "x")
	if err != nil {
		t.Fatal(err)
	}
	c := cs[0]
	if !slices.Equal(c.Users, []string{"a", "b", "c"}) || !slices.Equal(c.MaxTokens, []int{4, 9, 4}) ||
		!slices.Equal(c.Waits, []time.Duration{NoWait, 1500 * time.Microsecond, 20 * time.Millisecond}) ||
		len(c.Subs) != 2 || c.Subs[0] != nil || len(c.Subs[1]) != 2 || !slices.Equal(c.Parallel, []bool{false, true}) {
		t.Fatalf("got %+v", c)
	}
	if s := c.Subs[1][0]; !slices.Equal(s.Waits, []time.Duration{0}) || c.Subs[1][1].Waits != nil || !slices.Equal(c.Subs[1][1].Users, []string{"s2", "s3"}) {
		t.Errorf("subs %+v", c.Subs[1])
	}
	if c.allTurns() != 6 {
		t.Errorf("%d turns in all, want 6", c.allTurns())
	}
	c.dropMaxTokens()
	if c.MaxTokens != nil {
		t.Error("max_tokens kept")
	}
	for in, want := range map[string]string{
		`{"turns": [{"wait_ms": 1}]}`:                         `x:1: turn 1: want a string or an object with "user"`,
		`{"turns": [{"user": "a", "wait_ms": -1}]}`:           `x:1: turn 1: "wait_ms" must be from 0 to 3600000, got -1`,
		`{"turns": [{"user": "a", "max_tokens": 0}]}`:         `x:1: turn 1: "max_tokens" must be from 1 to 1000000`,
		`{"turns": [{"user": "a", "subs": [{"x": 1}]}]}`:      `x:1: turn 1: sub-session 1: want an object with "turns"`,
		`{"turns": [{"user": "a", "subs": [{"turns": []}]}]}`: `x:1: turn 1: sub-session 1: "turns" is empty`,
		`{"turns": [` + strings.Repeat(`{"user": "a", "subs": [{"turns": [`, 5) + `"z"` + strings.Repeat(`]}]}`, 5) + `]}`: `x:1: turn 1: sub-session 1: turn 1: sub-session 1: turn 1: sub-session 1: turn 1: sub-session 1: turn 1: sub-sessions nested more than 4 deep`,
	} {
		_, err := ReadJSONLConversations(strings.NewReader(in), "x")
		if err == nil || err.Error() != want {
			t.Errorf("%s: err = %v, want %q", in, err, want)
		}
	}
}

// A sub-session's prompt opens with the parent's history through the
// reply that started it; the next turn opens with the final replies; the
// history share is the bytes sent before over the prompt's bytes.
func TestAgenticPrompts(t *testing.T) {
	c := Conversation{Users: []string{"u1", "u2"}, Subs: [][]Conversation{{{Users: []string{"s1"}}}}, Parallel: []bool{false}}
	s := &Session{conv: c, turns: 2}
	if p := s.Prompt(0, nil); len(p.Messages) != 1 || s.HistoryShare() != 0 || !s.Agentic() {
		t.Fatalf("turn 1 %+v, share %v", p, s.HistoryShare())
	}
	subs, parallel := s.Branch(0, []string{"r1"})
	if len(subs) != 1 || parallel {
		t.Fatalf("subs %v parallel %v", subs, parallel)
	}
	p := subs[0].Prompt(0, nil)
	want := []client.Message{{Role: "user", Content: "u1"}, {Role: "assistant", Content: "r1"}, {Role: "user", Content: "s1"}}
	if !slices.Equal(p.Messages, want) || subs[0].HistoryShare() != 4.0/6 {
		t.Errorf("sub prompt %+v share %v; want %+v and 4/6", p.Messages, subs[0].HistoryShare(), want)
	}
	s.Join(0, []string{"f"})
	p = s.Prompt(1, []string{"r1"})
	want = []client.Message{{Role: "user", Content: "u1"}, {Role: "assistant", Content: "r1"}, {Role: "user", Content: "f\n\nu2"}}
	if !slices.Equal(p.Messages, want) || s.HistoryShare() != 4.0/9 {
		t.Errorf("turn 2 %+v share %v; want %+v and 4/9", p.Messages, s.HistoryShare(), want)
	}
	if d, ok := s.Wait(1); ok || d != 0 {
		t.Errorf("wait %v %v, want none", d, ok)
	}
	if subs, _ := s.Branch(1, []string{"r1", "r2"}); subs != nil {
		t.Error("turn 2 starts sub-sessions")
	}
}
