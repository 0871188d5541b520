package workload

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/client"
)

func TestReadJSONLConversations(t *testing.T) {
	in := "\xef\xbb\xbf{\"turns\": [\"a\", \"b\"]}\n\n{\"turns\": [\"c\"], \"max_tokens\": 7, \"id\": 1}\n"
	cs, err := ReadJSONLConversations(strings.NewReader(in), "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].ID != 0 || strings.Join(cs[0].Users, "|") != "a|b" || cs[0].MaxTokens != nil ||
		cs[1].ID != 2 || cs[1].Users[0] != "c" || len(cs[1].MaxTokens) != 1 || cs[1].MaxTokens[0] != 7 {
		t.Errorf("got %+v", cs)
	}
}

func TestReadJSONLConversationsLineErrors(t *testing.T) {
	for in, want := range map[string]string{
		"{\"turns\": [\"a\"]}\n{\"prompt\": \"p\"}": `x:2: want "turns"`,
		"\n\n{\"turns\": \"a\"}":                    `x:3: "turns" must be an array of strings`,
		"{\"turns\": []}":                           `x:1: "turns" is empty`,
		"{\"turns\": [\"a\", \" \"]}":               `x:1: turn 2 is empty`,
		"{\"turns\": [\"a\"], \"max_tokens\": 0}":   `x:1: "max_tokens" must be an integer from 1`,
		"[\"a\"]": `x:1: want a JSON object`,
		"{\"turns\": [\"a\"]}\n{\"turns\": [\"b\"]": `x:2: invalid JSON`,
	} {
		_, err := ReadJSONLConversations(strings.NewReader(in), "x")
		if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: err = %v, want one line starting %q", in, err, want)
		}
	}
}

func TestReadShareGPTConversations(t *testing.T) {
	in := `[
{"conversations": [{"from": "system", "value": "be brief"}, {"from": "human", "value": "q1"}, {"from": "gpt", "value": "one two three"},
  {"from": "human", "value": "q2"}, {"from": "gpt", "value": "four five"}, {"from": "human", "value": "q3"}]},
{"conversations": [{"from": "gpt", "value": "no question"}]},
{"conversations": [{"from": "user", "value": "r1"}, {"from": "assistant", "value": "x"}, {"from": "gpt", "value": "y"}]}
]`
	cs, skipped, err := ReadShareGPTConversations(strings.NewReader(in), "sg")
	if err != nil {
		t.Fatal(err)
	}
	if skipped != 1 || len(cs) != 2 {
		t.Fatalf("%d conversations, %d skipped: %+v", len(cs), skipped, cs)
	}
	// q3 has no answer: it is not a turn. The recorded answers set each
	// turn's max_tokens by EstimateTokens.
	if c := cs[0]; c.ID != 0 || strings.Join(c.Users, "|") != "q1|q2" ||
		c.MaxTokens[0] != EstimateTokens("one two three") || c.MaxTokens[1] != EstimateTokens("four five") {
		t.Errorf("conversation 0 = %+v", c)
	}
	if c := cs[1]; c.ID != 2 || strings.Join(c.Users, "|") != "r1" {
		t.Errorf("conversation 2 = %+v (a model turn after a model turn ends it)", c)
	}
	_, _, err = ReadShareGPTConversations(strings.NewReader("[\n{\"conversations\": 3}\n]"), "sg")
	if err == nil || !strings.HasPrefix(err.Error(), "sg:2: conversation 0:") {
		t.Errorf("err = %v, want sg:2: conversation 0: …", err)
	}
}

func TestFlattenTurns(t *testing.T) {
	got := FlattenTurns([]client.Message{{Role: "user", Content: "hi"}, {Role: "assistant", Content: "hello"}, {Role: "user", Content: "more"}})
	if want := "User: hi\nAssistant: hello\nUser: more\nAssistant:"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestSyntheticSessions: each session opens with its own stamp after the
// shared prefix, later turns are FollowUpTokens of new text, and the
// prompt of turn k holds the history with the replies.
func TestSyntheticSessions(t *testing.T) {
	set, err := Load(Options{InputTokens: 200, SharedPrefixTokens: 50, Turns: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ss := set.Sessions
	a, b := ss.Open(), ss.Open()
	if a.Turns() != 3 {
		t.Fatalf("turns %d, want 3", a.Turns())
	}
	pa, pb := a.Prompt(0, nil), b.Prompt(0, nil)
	shared := ss.synth.first.Stamp.shared
	ua, ub := pa.Messages[0].Content, pb.Messages[0].Content
	if !strings.HasPrefix(ua, shared) || !strings.HasPrefix(ub, shared) || len(shared) == 0 {
		t.Fatal("the openings do not start with the shared prefix")
	}
	if ua[:len(shared)+stampWidth] == ub[:len(shared)+stampWidth] {
		t.Errorf("two sessions share their opening past the shared prefix: %q", ua[:len(shared)+stampWidth])
	}
	p2 := a.Prompt(2, []string{"R1", "R2"})
	if len(p2.Messages) != 5 || p2.Messages[0].Content != ua || p2.Messages[1].Content != "R1" || p2.Messages[3].Content != "R2" {
		t.Fatalf("turn 3's messages %+v", p2.Messages)
	}
	if n := EstimateTokens(ua); n > 200 || n < 190 {
		t.Errorf("the opening has %d tokens, want about --input-tokens 200", n)
	}
	if n := EstimateTokens(p2.Messages[4].Content); n > FollowUpTokens || n < FollowUpTokens-10 || strings.HasPrefix(p2.Messages[4].Content, shared) {
		t.Errorf("a later message has %d tokens (want about %d) or repeats the shared prefix", n, FollowUpTokens)
	}
	if p2.Messages[2].Content == p2.Messages[4].Content {
		t.Error("turns 2 and 3 send the same message")
	}
}

// Without --input-tokens a synthetic session opens with a unique message of
// about DefaultOpeningTokens and follows up with short ones: a later
// turn's new text is a small share of turn 1's.
func TestSyntheticSessionsDefault(t *testing.T) {
	set, err := Load(Options{Turns: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	a, b := set.Sessions.Open(), set.Sessions.Open()
	ua, ub := a.Prompt(0, nil).Messages[0].Content, b.Prompt(0, nil).Messages[0].Content
	if n := EstimateTokens(ua); n > DefaultOpeningTokens || n < DefaultOpeningTokens-10 {
		t.Errorf("the default opening has %d tokens, want about %d", n, DefaultOpeningTokens)
	}
	if ua[:stampWidth] == ub[:stampWidth] {
		t.Errorf("two sessions open alike: %q", ua[:stampWidth])
	}
	for k := 1; k < 4; k++ {
		m := a.Prompt(k, make([]string, k)).Messages
		if n := EstimateTokens(m[len(m)-1].Content); n > FollowUpTokens || n < FollowUpTokens-10 {
			t.Errorf("turn %d's message has %d tokens, want about %d", k+1, n, FollowUpTokens)
		}
	}
	if !strings.Contains(set.Source, "~1000 tokens") || !strings.Contains(set.Source, "follow-ups of ~50 tokens") {
		t.Errorf("source %q does not say the opening's and the follow-ups' sizes", set.Source)
	}
}

// MaxTurns caps a replayed conversation (the flags' checks are the
// sessions mode's: app's TestSessionUsageErrors).
func TestMaxTurnsCapsAConversation(t *testing.T) {
	name := filepath.Join(t.TempDir(), "c.jsonl")
	if err := os.WriteFile(name, []byte(`{"turns": ["a", "b", "c"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	set, err := Load(Options{Dataset: name, MultiTurn: true, MaxTurns: 2})
	if err != nil {
		t.Fatal(err)
	}
	if n := set.Sessions.Open().Turns(); n != 2 {
		t.Errorf("--max-turns 2: %d turns", n)
	}
}
