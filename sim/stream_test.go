package sim

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/internal/tokcount"
)

// wantStream is what a finished stream should contain.
type wantStream struct {
	tokens int    // completion tokens (readBack of the token events' text)
	events int    // token events (not counting role, final, usage)
	finish string // finish_reason of the final chunk
	usage  bool   // a usage chunk with empty choices before [DONE]
}

func TestChatStream(t *testing.T) {
	withEOS := func(n int) func(*Config) { return func(c *Config) { c.EOSAfter = n } }
	tests := []struct {
		name  string
		cfg   func(*Config)
		extra map[string]any
		want  wantStream
	}{
		{"length", nil, map[string]any{"max_tokens": 5}, wantStream{5, 5, "length", false}},
		{"include_usage", nil, map[string]any{"max_tokens": 5, "stream_options": map[string]any{"include_usage": true}},
			wantStream{5, 5, "length", true}},
		{"include_usage false", nil, map[string]any{"max_tokens": 2, "stream_options": map[string]any{"include_usage": false}},
			wantStream{2, 2, "length", false}},
		{"max_completion_tokens wins", nil, map[string]any{"max_tokens": 7, "max_completion_tokens": 3},
			wantStream{3, 3, "length", false}},
		{"eos", withEOS(4), map[string]any{"max_tokens": 10}, wantStream{4, 4, "stop", false}},
		{"eos after max", withEOS(20), map[string]any{"max_tokens": 10}, wantStream{10, 10, "length", false}},
		{"eos at max", withEOS(10), map[string]any{"max_tokens": 10}, wantStream{10, 10, "stop", false}},
		{"ignore_eos", withEOS(4), map[string]any{"max_tokens": 10, "ignore_eos": true}, wantStream{10, 10, "length", false}},
		{"min_tokens", withEOS(4), map[string]any{"max_tokens": 10, "min_tokens": 6}, wantStream{6, 6, "stop", false}},
		{"tokens per chunk", func(c *Config) { c.TokensPerChunk = 3 }, map[string]any{"max_tokens": 7},
			wantStream{7, 3, "length", false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig()
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			_, url := startSim(t, cfg)
			body := chatBody("hello there", 0)
			maps.Copy(body, tt.extra)
			evs := streamReq(t, url+"/v1/chat/completions", body)
			checkStream(t, chatAPI, 2, evs, tt.want)
		})
	}
}

func TestCompletionsStream(t *testing.T) {
	tests := []struct {
		name  string
		eos   int
		extra map[string]any
		want  wantStream
	}{
		{"length with usage", 0, map[string]any{"max_tokens": 6, "stream_options": map[string]any{"include_usage": true}},
			wantStream{6, 6, "length", true}},
		{"default max_tokens is 16", 0, nil, wantStream{16, 16, "length", false}},
		{"eos", 3, map[string]any{"max_tokens": 6}, wantStream{3, 3, "stop", false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig()
			cfg.EOSAfter = tt.eos
			_, url := startSim(t, cfg)
			body := map[string]any{"model": "test-model", "prompt": "once upon a time"}
			maps.Copy(body, tt.extra)
			evs := streamReq(t, url+"/v1/completions", body)
			checkStream(t, completionsAPI, 4, evs, tt.want)
		})
	}
}

// checkStream checks a whole stream, the reply to a prompt of g0 words,
// against vLLM's event sequence.
func checkStream(t *testing.T, a api, g0 int, evs []sseEvent, want wantStream) {
	t.Helper()
	if len(evs) == 0 || evs[len(evs)-1].data != "[DONE]" {
		t.Fatalf("stream does not end with [DONE]: %v", evs)
	}
	evs = evs[:len(evs)-1]
	objs := make([]map[string]any, len(evs))
	for i, e := range evs {
		objs[i] = e.obj(t)
	}
	checkSentStamps(t, objs)
	if a == chatAPI {
		if d := path(objs[0], "choices", 0, "delta"); !jsonEqual(d, map[string]any{"role": "assistant"}) {
			t.Fatalf("first chunk delta = %v, want role only", d)
		}
		objs = objs[1:]
	}
	n := want.events
	if want.usage {
		n++
	}
	if len(objs) != n+1 {
		t.Fatalf("got %d chunks after the role chunk, want %d token + 1 final (+1 usage: %v)", len(objs), want.events, want.usage)
	}
	var text strings.Builder
	for i, o := range objs[:want.events] {
		text.WriteString(chunkText(a, o))
		if fr := path(o, "choices", 0, "finish_reason"); fr != nil {
			t.Errorf("token chunk %d: finish_reason = %v", i, fr)
		}
		if u, ok := o["usage"]; !ok || u != nil {
			t.Errorf("token chunk %d: usage = %v (present %v), want null", i, u, ok)
		}
	}
	if got := readBack(g0, text.String()); got != want.tokens {
		t.Errorf("streamed %q, %d tokens read back, want %d", text.String(), got, want.tokens)
	}
	final := objs[want.events]
	if fr := path(final, "choices", 0, "finish_reason"); fr != want.finish {
		t.Errorf("finish_reason = %v, want %s", fr, want.finish)
	}
	if a == chatAPI && !jsonEqual(path(final, "choices", 0, "delta"), map[string]any{}) {
		t.Errorf("final delta = %v, want {}", path(final, "choices", 0, "delta"))
	}
	if want.usage {
		u := objs[len(objs)-1]
		if c, _ := u["choices"].([]any); c == nil || len(c) != 0 {
			t.Errorf("usage chunk choices = %v, want []", u["choices"])
		}
		if got := path(u, "usage", "completion_tokens"); got != float64(want.tokens) {
			t.Errorf("usage.completion_tokens = %v, want %d", got, want.tokens)
		}
	}
}

// readBack is the number of tokens a reply's text reads back as after a
// prompt of g0 words, by the prompt rule (ceil(1.3 × words) over the
// conversation): one less when the text stops inside a word, whose second
// token was not generated.
func readBack(g0 int, text string) int {
	n := tokcount.FromWords(g0+len(strings.Fields(text))) - tokcount.FromWords(g0)
	if text != "" && !strings.HasSuffix(text, " ") {
		n--
	}
	return n
}

// chunkText is the text a chunk carries: content and reasoning, or text.
func chunkText(a api, o map[string]any) string {
	if a == completionsAPI {
		s, _ := path(o, "choices", 0, "text").(string)
		return s
	}
	var b strings.Builder
	for _, f := range []string{ReasoningContent, ReasoningPlain, "content"} {
		s, _ := path(o, "choices", 0, "delta", f).(string)
		b.WriteString(s)
	}
	return b.String()
}

// checkSentStamps checks that every event carries a non-decreasing
// x_sent_unix_ns.
func checkSentStamps(t *testing.T, objs []map[string]any) {
	t.Helper()
	var prev float64
	for i, o := range objs {
		v, ok := o["x_sent_unix_ns"].(float64)
		if !ok || v <= 0 {
			t.Fatalf("event %d: x_sent_unix_ns = %v", i, o["x_sent_unix_ns"])
		}
		if v < prev {
			t.Errorf("event %d: x_sent_unix_ns went back from %.0f to %.0f", i, prev, v)
		}
		prev = v
	}
}

func jsonEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func TestRoleChunkSentWithFirstToken(t *testing.T) {
	cfg := testConfig()
	cfg.DecodeBase = 30 * time.Millisecond
	s, url := startSim(t, cfg)
	// Role and first token are written in the same flush, a step later
	// comes the second token. A late first step (a starved machine) makes
	// the second come sooner, on its absolute deadline: such a run is
	// tried again.
	eventuallyOn(t, serverLate(s), func() error {
		evs := streamReq(t, url+"/v1/chat/completions", chatBody("hi", 3))
		role, first, second := evs[0].obj(t), evs[1].obj(t), evs[2].obj(t)
		gap := func(a, b map[string]any) time.Duration {
			return time.Duration(b["x_sent_unix_ns"].(float64) - a["x_sent_unix_ns"].(float64))
		}
		if g := gap(role, first); g > 5*time.Millisecond {
			return fmt.Errorf("role chunk sent %v before the first token, want the same flush", g)
		}
		if g := gap(first, second); g < 20*time.Millisecond {
			return fmt.Errorf("second token %v after the first, want about one 30ms step", g)
		}
		return nil
	})
}

func TestNoSendStamp(t *testing.T) {
	cfg := testConfig()
	cfg.StampSendTime = false
	_, url := startSim(t, cfg)
	for _, e := range streamReq(t, url+"/v1/chat/completions", chatBody("hi", 3)) {
		if strings.Contains(e.data, "x_sent_unix_ns") {
			t.Fatalf("event carries a send stamp with StampSendTime off: %s", e.data)
		}
	}
}
