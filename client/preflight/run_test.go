package preflight

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/client"
)

// Run reads the pre-flight to its end and keeps it; a prompt set that
// overflows the listed context fails with the numbers; the server's
// momentary state is a warning; a refusal is a failed check with the flag
// to change; a 404 on a --url without /v1 names the /v1.
func TestRun(t *testing.T) {
	t.Parallel()
	long := client.Prompt{Messages: []client.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: strings.Repeat("word ", 400)}}}
	for _, tc := range []struct {
		name      string
		f         fake
		path      string
		maxTokens int
		body      map[string]any
		prompts   []client.Prompt
		measured  bool
		err, warn string // "": none
	}{
		{name: "fits", f: fake{models: []client.Model{{ID: "m", MaxModelLen: 4096}}, promptTokens: 7}, path: "/v1",
			maxTokens: 100, prompts: []client.Prompt{{Text: "hi"}}, measured: true},
		{name: "prompt over the context", f: fake{models: []client.Model{{ID: "m", MaxModelLen: 300}}, promptTokens: 7}, path: "/v1",
			maxTokens: 100, prompts: []client.Prompt{{Text: "hi"}, long}, measured: true,
			err: "pre-flight check failed, no load sent: prompt ~"},
		{name: "output over the context", f: fake{models: []client.Model{{ID: "m", MaxModelLen: 300}}, promptTokens: 7}, path: "/v1",
			maxTokens: 400, prompts: []client.Prompt{{Text: "hi"}}, measured: true,
			err: "pre-flight check failed, no load sent: prompt ~7 + max_tokens 400 > context 300: lower --max-tokens (the server lists model m with max_model_len 300)"},
		{name: "max_tokens in the body", f: fake{models: []client.Model{{ID: "m", MaxModelLen: 300}}, promptTokens: 7}, path: "/v1",
			maxTokens: 400, body: map[string]any{"max_tokens": 5}, prompts: []client.Prompt{{Text: "hi"}}, measured: true},
		{name: "not listed", f: fake{promptTokens: 7}, path: "/v1", maxTokens: 4000, prompts: []client.Prompt{{Text: "hi"}}, measured: true},
		{name: "busy", f: fake{reply: status(503, "overloaded")}, path: "/v1", maxTokens: 100,
			warn: "toksweep: warning: the pre-flight request failed ("},
		{name: "queue full in the stream", f: fake{reply: eventError("queue is full")}, path: "/v1", maxTokens: 100,
			warn: "queue is full"},
		{name: "context refusal", f: fake{reply: status(400, "This model's maximum context length is 1024 tokens. However, you requested 1034 tokens (1026 in the messages, 8 in the completion).")},
			path: "/v1", maxTokens: 2048, err: "(prompt ~1026 > context 1024: shorten the prompts)"},
		{name: "bad request", f: fake{reply: status(400, "bad temperature")}, path: "/v1", maxTokens: 100,
			err: "(check --max-tokens, the prompt and --extra-body against what the model accepts)"},
		{name: "no /v1", f: fake{reply: status(404, "not found")}, path: "", maxTokens: 100, err: "did you mean --url "},
	} {
		url := tc.f.start(t) + tc.path
		cfg := config(url, "m", tc.maxTokens)
		cfg.ExtraBody = tc.body
		var stderr bytes.Buffer
		res, err := Run(context.Background(), newClient(t, cfg), Target{Config: cfg, Prompts: tc.prompts}, client.Prompt{Text: "hi"}, &stderr)
		if res.Measured != tc.measured || res.Measured && res.Rec.PromptTokens != 7 {
			t.Errorf("%s: measured %v (prompt tokens %d), want %v", tc.name, res.Measured, res.Rec.PromptTokens, tc.measured)
		}
		if want := tc.f.listed("m"); res.ContextLen != want {
			t.Errorf("%s: context length %d, want %d", tc.name, res.ContextLen, want)
		}
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.err)
		}
		if tc.warn == "" && stderr.Len() > 0 || !strings.Contains(stderr.String(), tc.warn) {
			t.Errorf("%s: stderr %q, want %q", tc.name, stderr.String(), tc.warn)
		}
	}
}

// listed is the context length f lists for model id; 0: none.
func (f *fake) listed(id string) int {
	for _, m := range f.models {
		if m.ID == id {
			return m.MaxModelLen
		}
	}
	return 0
}

// eventError answers with an error event inside a 200 stream, as
// llm-d-inference-sim reports a full queue.
func eventError(msg string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(`data: {"error":{"message":"` + msg + `","code":429}}` + "\n\n"))
	}
}
