package workload

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// testdata/datasets/otel-agent.jsonl: trace 1 is an agent's call A (0–1 s)
// whose reply starts two sub-agents, B (1.2–2 s) and C (1.3–2.4 s,
// overlapping B), then D (2.9–3.5 s, its messages A's history plus B's
// and C's results as tool messages) and E (4–4.4 s, D's history); a tool
// span between them is no LLM call. Trace 2 has no LLM span.
func TestReadOTelConversations(t *testing.T) {
	set, err := Load(Options{Dataset: datasetPath("otel-agent.jsonl"), Format: OTel, MultiTurn: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(set.Source, "1 conversations (1 skipped)") {
		t.Errorf("source %q", set.Source)
	}
	c := set.Sessions.convs[0]
	ms := time.Millisecond
	if want := []string{"You are a coding agent.\n\nFix the bug in parser.go.", "Now write the patch.", "Run the tests."}; !slices.Equal(c.Users, want) {
		t.Errorf("turns %q, want %q (D's tool results are B's and C's recorded replies, left out)", c.Users, want)
	}
	// D waits from C's end, the later sub-agent's; E from D's.
	if !slices.Equal(c.Waits, []time.Duration{0, 500 * ms, 500 * ms}) || !slices.Equal(c.MaxTokens, []int{12, 8, 6}) {
		t.Errorf("waits %v, max_tokens %v", c.Waits, c.MaxTokens)
	}
	if len(c.Subs) != 1 || len(c.Subs[0]) != 2 || !c.Parallel[0] {
		t.Fatalf("subs %+v parallel %v: want B and C at once after turn 1", c.Subs, c.Parallel)
	}
	b, cc := c.Subs[0][0], c.Subs[0][1]
	if !slices.Equal(b.Users, []string{"Read parser.go and find the bug."}) || !slices.Equal(b.Waits, []time.Duration{200 * ms}) ||
		!slices.Equal(cc.Users, []string{"Read the CI log."}) || !slices.Equal(cc.Waits, []time.Duration{300 * ms}) {
		t.Errorf("sub-sessions %+v, %+v: want B after 200 ms, C after 300 ms", b, cc)
	}
}

// A span that overlaps the first and follows nothing is left out and
// counted; sub-agents that did not overlap run one after another, the
// second due from the first's end; malformed spans are errors naming the
// trace and span.
func TestOTelLinks(t *testing.T) {
	in := `{"spans": [
	 {"start_time": "2026-01-01T00:00:00Z", "end_time": "2026-01-01T00:00:01Z", "attributes": {"gen_ai.input.messages": [{"role": "user", "content": "go"}], "gen_ai.output.messages": [{"role": "assistant", "content": "ok"}]}},
	 {"start_time": "2026-01-01T00:00:00.5Z", "end_time": "2026-01-01T00:00:02Z", "attributes": {"gen_ai.input.messages": [{"role": "user", "content": "other"}]}},
	 {"start_time": "2026-01-01T00:00:03Z", "end_time": "2026-01-01T00:00:04Z", "attributes": {"gen_ai.input.messages": [{"role": "user", "content": "go"}, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "s1"}]}},
	 {"start_time": "2026-01-01T00:00:04.25Z", "end_time": "2026-01-01T00:00:05Z", "attributes": {"gen_ai.input.messages": [{"role": "user", "content": "go"}, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "s2"}]}},
	 {"start_time": "2026-01-01T00:00:06Z", "end_time": "2026-01-01T00:00:07Z", "attributes": {"gen_ai.input.messages": [{"role": "user", "content": "go"}, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "next"}]}}]}`
	convs, skipped, err := ReadOTelConversations(strings.NewReader(in), "x")
	if err != nil {
		t.Fatal(err)
	}
	c := convs[0]
	if skipped != 1 || !slices.Equal(c.Users, []string{"go", "next"}) || len(c.Subs) != 1 || c.Parallel[0] {
		t.Fatalf("skipped %d, %+v", skipped, c)
	}
	if w := c.Subs[0][1].Waits[0]; w != 250*time.Millisecond {
		t.Errorf("second sequential sub-agent waits %v, want 250ms from the first's end", w)
	}
	for in, want := range map[string]string{
		`{"spans": [{"start_time": "noon", "attributes": {"gen_ai.input.messages": "[]"}}]}`:                                                    `x: trace 1: span 1: "start_time" "noon": want RFC 3339`,
		`{"spans": [{"start_time": "2026-01-01T00:00:00Z", "end_time": "2026-01-01T00:00:00Z", "attributes": {"gen_ai.input.messages": "3"}}]}`: `x: trace 1: span 1: gen_ai.input.messages: want a non-empty list of messages (not a list)`,
		`{"spans": [`: `x: trace 1: invalid JSON: unexpected EOF`,
	} {
		if _, _, err := ReadOTelConversations(strings.NewReader(in), "x"); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
	if _, err := Load(Options{Dataset: datasetPath("otel-agent.jsonl"), Format: OTel}); err == nil || !strings.Contains(err.Error(), "needs --multi-turn") {
		t.Errorf("without --multi-turn: %v", err)
	}
}
