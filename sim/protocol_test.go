package sim

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestModelsAndHealth(t *testing.T) {
	_, url := startSim(t, testConfig())
	resp, err := http.Get(url + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	m := decodeBody(t, resp)
	want := map[string]any{"id": "test-model", "object": "model", "owned_by": "toksweep-sim",
		"root": "test-model", "max_model_len": float64(256)}
	card, _ := path(m, "data", 0).(map[string]any)
	for k, v := range want {
		if card[k] != v {
			t.Errorf("models: %s = %v, want %v", k, card[k], v)
		}
	}
	if m["object"] != "list" || card["created"] == nil {
		t.Errorf("models = %v", m)
	}

	resp, err = http.Get(url + "/health")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(b) != 0 {
		t.Errorf("health: %d %q, want 200 and an empty body", resp.StatusCode, b)
	}
}

func TestWrongMethod(t *testing.T) {
	_, url := startSim(t, testConfig())
	for _, tt := range []struct{ method, path, allow string }{
		{http.MethodGet, "/v1/chat/completions", "POST"},
		{http.MethodPut, "/v1/completions", "POST"},
		{http.MethodPost, "/v1/models", "GET"},
		{http.MethodDelete, "/health", "GET"},
	} {
		req, _ := http.NewRequest(tt.method, url+tt.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.Header.Get("Allow"); got != tt.allow {
			t.Errorf("%s %s: Allow = %q, want %q", tt.method, tt.path, got, tt.allow)
		}
		checkError(t, resp, http.StatusMethodNotAllowed, "MethodNotAllowedError", "Method Not Allowed")
	}
}

// checkError checks a vLLM-shaped error reply.
func checkError(t *testing.T, resp *http.Response, status int, typ, msgPart string) {
	t.Helper()
	if resp.StatusCode != status {
		t.Errorf("status = %d, want %d", resp.StatusCode, status)
	}
	m := decodeBody(t, resp)
	if m["object"] != "error" || m["type"] != typ || m["code"] != float64(status) {
		t.Errorf("error body = %v, want object error, type %s, code %d", m, typ, status)
	}
	if p, ok := m["param"]; !ok || p != nil {
		t.Errorf("error param = %v (present %v), want null", p, ok)
	}
	if msg, _ := m["message"].(string); !strings.Contains(msg, msgPart) {
		t.Errorf("error message = %q, want it to contain %q", msg, msgPart)
	}
}

func TestErrors(t *testing.T) {
	_, url := startSim(t, testConfig()) // MaxModelLen 256
	chat, cmpl := url+"/v1/chat/completions", url+"/v1/completions"
	// "one two three": ceil(3×1.3)+4 = 8 prompt tokens.
	tests := []struct {
		name, url string
		body      any
		status    int
		typ, msg  string
	}{
		{"context", chat, chatBody("one two three", 250), 400, "BadRequestError",
			"This model's maximum context length is 256 tokens. However, you requested 258 tokens " +
				"(8 in the messages, 250 in the completion). Please reduce the length of the messages or completion."},
		{"context completions", cmpl, map[string]any{"prompt": "a b c d e f g h i j", "max_tokens": 250}, 400,
			"BadRequestError", "you requested 263 tokens (13 in the messages, 250 in the completion)"},
		{"prompt alone too long", cmpl, map[string]any{"prompt": strings.Repeat("word ", 200)}, 400,
			"BadRequestError", "However, your request has 260 input tokens."},
		{"unknown model", chat, map[string]any{"model": "nope", "messages": []any{map[string]any{"role": "user", "content": "x"}}},
			404, "NotFoundError", "The model `nope` does not exist."},
		{"malformed JSON", chat, `{"messages": [`, 400, "BadRequestError", "Invalid JSON"},
		{"max_tokens 0", chat, chatBody("x", 0), 400, "BadRequestError", "max_tokens must be at least 1"},
		{"min_tokens over max", chat, map[string]any{"messages": []any{map[string]any{"role": "user", "content": "x"}},
			"max_tokens": 2, "min_tokens": 3}, 400, "BadRequestError", "min_tokens must be less than or equal"},
		{"no messages", chat, map[string]any{"messages": []any{}}, 400, "BadRequestError", "messages"},
		{"bad prompt", cmpl, map[string]any{"prompt": 42}, 400, "BadRequestError", "prompt must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkError(t, post(t, context.Background(), tt.url, tt.body), tt.status, tt.typ, tt.msg)
		})
	}
}

func TestInjected500(t *testing.T) {
	cfg := testConfig()
	cfg.ErrorRate500 = 1
	_, url := startSim(t, cfg)
	checkError(t, post(t, context.Background(), url+"/v1/chat/completions", chatBody("x", 2)),
		500, "InternalServerError", "Injected")
}

func TestNonStreaming(t *testing.T) {
	cfg := testConfig()
	cfg.ReasoningShare = 0.25
	_, url := startSim(t, cfg)

	m := decodeBody(t, post(t, context.Background(), url+"/v1/chat/completions", chatBody("hello", 8)))
	if m["object"] != "chat.completion" || path(m, "choices", 0, "finish_reason") != "length" {
		t.Errorf("chat body = %v", m)
	}
	content, _ := path(m, "choices", 0, "message", "content").(string)
	reasoning, _ := path(m, "choices", 0, "message", ReasoningContent).(string)
	if readBack(1, content) != 6 || readBack(1, reasoning) != 2 {
		t.Errorf("message content %q, reasoning %q: want 6 and 2 tokens", content, reasoning)
	}
	wantUsage := map[string]any{"prompt_tokens": float64(6), "completion_tokens": float64(8), "total_tokens": float64(14),
		"completion_tokens_details": map[string]any{"reasoning_tokens": float64(2)}}
	if !jsonEqual(m["usage"], wantUsage) {
		t.Errorf("chat usage = %v, want %v", m["usage"], wantUsage)
	}

	m = decodeBody(t, post(t, context.Background(), url+"/v1/completions", map[string]any{"prompt": "hi", "max_tokens": 5}))
	text, _ := path(m, "choices", 0, "text").(string)
	if m["object"] != "text_completion" || readBack(1, text) != 5 || path(m, "usage", "completion_tokens") != float64(5) {
		t.Errorf("completions body = %v", m)
	}
	if path(m, "usage", "completion_tokens_details") != nil {
		t.Errorf("completions usage has reasoning details: %v", m["usage"])
	}
}

func TestReasoningStream(t *testing.T) {
	for _, field := range []string{ReasoningContent, ReasoningPlain} {
		t.Run(field, func(t *testing.T) {
			cfg := testConfig()
			cfg.ReasoningShare, cfg.ReasoningField = 0.5, field
			_, url := startSim(t, cfg)
			body := chatBody("think", 9)
			body["stream_options"] = map[string]any{"include_usage": true}
			evs := streamReq(t, url+"/v1/chat/completions", body)
			var order []string // "r" or "c" per token event
			for _, e := range evs[1 : len(evs)-3] {
				d, _ := path(e.obj(t), "choices", 0, "delta").(map[string]any)
				switch {
				case len(d) != 1:
					t.Fatalf("delta %v: want exactly one field", d)
				case d[field] != nil:
					order = append(order, "r")
				case d["content"] != nil:
					order = append(order, "c")
				default:
					t.Fatalf("delta %v: want %s or content", d, field)
				}
			}
			// floor(0.5×9) = 4 reasoning tokens, then 5 content tokens.
			if got := strings.Join(order, ""); got != "rrrrccccc" {
				t.Errorf("token order %s, want rrrrccccc", got)
			}
			u := evs[len(evs)-2].obj(t)
			if got := path(u, "usage", "completion_tokens_details", "reasoning_tokens"); got != float64(4) {
				t.Errorf("reasoning_tokens = %v, want 4", got)
			}
		})
	}
}

func TestRawStreamWithUsage(t *testing.T) {
	_, url := startSim(t, testConfig())
	// What curl -N -d '{...}' sends and reads.
	resp := post(t, context.Background(), url+"/v1/chat/completions",
		`{"model":"test-model","messages":[{"role":"user","content":"Say hi"}],"max_tokens":3,"temperature":0.6,`+
			`"stream":true,"stream_options":{"include_usage":true}}`)
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Errorf("Content-Type = %q", ct)
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	events := strings.Split(strings.TrimSuffix(string(raw), "\n\n"), "\n\n")
	if len(events) != 7 { // role, 3 tokens, final, usage, [DONE]
		t.Fatalf("got %d events, want 7:\n%s", len(events), raw)
	}
	for i, e := range events {
		if !strings.HasPrefix(e, "data: ") || strings.Contains(e, "\n") {
			t.Errorf("event %d is not one data line: %q", i, e)
		}
	}
	if events[6] != "data: [DONE]" {
		t.Errorf("last event = %q", events[6])
	}
	for _, want := range []string{`"choices":[]`, `"prompt_tokens":7`, `"completion_tokens":3`, `"total_tokens":10`} {
		if !strings.Contains(events[5], want) {
			t.Errorf("usage event %s lacks %s", events[5], want)
		}
	}
}
