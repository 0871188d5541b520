package client

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func ptr[T any](v T) *T { return &v }

// TestRequestOnTheWire captures what the server receives: the body
// members, their overrides, and the headers.
func TestRequestOnTheWire(t *testing.T) {
	t.Parallel()
	stream := splitEvents(readFile(t, transcriptsDir, "llmd-chat-stream-usage.sse"))
	tests := []struct {
		name   string
		cfg    Config
		prompt Prompt
		path   string
		want   map[string]any // members that must be there, with these values
		absent []string       // members that must not be there
		raw    string         // a substring of the raw body
	}{
		{"chat defaults", Config{MaxTokens: 64}, Prompt{Text: "Hello"}, "/v1/chat/completions",
			map[string]any{"model": "demo-model", "max_tokens": 64.0, "stream": true,
				"stream_options": map[string]any{"include_usage": true},
				"messages":       []any{map[string]any{"role": "user", "content": "Hello"}}},
			[]string{"temperature", "prompt"}, ""},
		{"temperature 0 is sent", Config{Temperature: ptr(0.0)}, Prompt{Text: "x"}, "/v1/chat/completions",
			map[string]any{"temperature": 0.0}, []string{"max_tokens"}, `"temperature":0`},
		{"prompt max_tokens and messages", Config{MaxTokens: 64, Temperature: ptr(0.6)},
			Prompt{MaxTokens: 2048, Messages: []Message{{"system", "Be brief."}, {"user", "<essay>"}}},
			"/v1/chat/completions", map[string]any{"max_tokens": 2048.0, "temperature": 0.6, "messages": []any{
				map[string]any{"role": "system", "content": "Be brief."},
				map[string]any{"role": "user", "content": "<essay>"}}}, nil, ""},
		{"extra body overrides", Config{MaxTokens: 64, Temperature: ptr(0.0), ExtraBody: map[string]any{
			"max_tokens": 7, "temperature": 1, "ignore_eos": true, "stream_options": map[string]any{"include_usage": false}}},
			Prompt{Text: "x", MaxTokens: 99}, "/v1/chat/completions", map[string]any{
				"max_tokens": 7.0, "temperature": 1.0, "ignore_eos": true,
				"stream_options": map[string]any{"include_usage": false}}, nil, ""},
		{"completions text", Config{API: Completions, MaxTokens: 5}, Prompt{Text: "Once upon"}, "/v1/completions",
			map[string]any{"prompt": "Once upon", "max_tokens": 5.0}, []string{"messages"}, ""},
		{"completions token ids", Config{API: Completions}, Prompt{Text: "ignored", TokenIDs: []int{5, 1000, 31999}}, "/v1/completions",
			map[string]any{"prompt": []any{5.0, 1000.0, 31999.0}}, []string{"min_tokens"}, `"prompt":[5,1000,31999],`},
		{"chat cannot take token ids", Config{}, Prompt{Text: "words", TokenIDs: []int{5}}, "/v1/chat/completions",
			map[string]any{"messages": []any{map[string]any{"role": "user", "content": "words"}}}, nil, ""},
		{"min_tokens", Config{MaxTokens: 9}, Prompt{Text: "x", MinTokens: 9}, "/v1/chat/completions",
			map[string]any{"min_tokens": 9.0, "max_tokens": 9.0}, nil, ""},
		{"completions flattens messages", Config{API: Completions},
			Prompt{Messages: []Message{{"system", "S"}, {"user", "U"}}}, "/v1/completions",
			map[string]any{"prompt": "system: S\nuser: U"}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t, replay(stream, pace{}, nil))
			c := newClient(t, srv.URL, tt.cfg)
			if rec := c.Do(context.Background(), tt.prompt); !rec.OK() {
				t.Fatalf("%s: %s", rec.ErrorClass, rec.Error)
			}
			raw, _ := srv.last()
			var body map[string]any
			if err := json.Unmarshal(raw, &body); err != nil {
				t.Fatalf("body %s: %v", raw, err)
			}
			if path := srv.lastPath(); path != tt.path {
				t.Errorf("path %q, want %q", path, tt.path)
			}
			for k, v := range tt.want {
				if !reflect.DeepEqual(body[k], v) {
					t.Errorf("%s = %#v, want %#v", k, body[k], v)
				}
			}
			for _, k := range tt.absent {
				if _, ok := body[k]; ok {
					t.Errorf("%s is sent: %s", k, raw)
				}
			}
			if !strings.Contains(string(raw), tt.raw) {
				t.Errorf("body %s does not contain %s", raw, tt.raw)
			}
		})
	}
}

// TestHeaders checks the headers sent with every request.
func TestHeaders(t *testing.T) {
	t.Parallel()
	srv := newServer(t, replay(splitEvents(readFile(t, transcriptsDir, "llmd-chat-stream-usage.sse")), pace{}, nil))
	c := newClient(t, srv.URL, Config{APIKey: "sk-test", Headers: http.Header{"X-Tenant": {"a"}, "x-lower": {"b"}}})
	c.Do(context.Background(), Prompt{Text: "x"})
	_, h := srv.last()
	want := map[string]string{
		"Authorization": "Bearer sk-test", "Content-Type": "application/json", "Accept": "text/event-stream",
		"X-Tenant": "a", "X-Lower": "b", "Accept-Encoding": "",
	}
	for k, v := range want {
		if got := h.Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	c = newClient(t, srv.URL, Config{})
	c.Do(context.Background(), Prompt{Text: "x"})
	if _, h := srv.last(); h.Get("Authorization") != "" {
		t.Errorf("Authorization %q without a key", h.Get("Authorization"))
	}
}

// TestConnectionReuse checks that after [DONE] the client reads the body to
// its end, so that sequential requests share one connection.
func TestConnectionReuse(t *testing.T) {
	t.Parallel()
	srv := newServer(t, replay(splitEvents(readFile(t, transcriptsDir, "ollama-chat-stream-usage.sse")), pace{}, nil))
	c := newClient(t, srv.URL, Config{})
	for range 5 {
		if rec := c.Do(context.Background(), Prompt{Text: "x"}); !rec.OK() {
			t.Fatalf("%s %s", rec.ErrorClass, rec.Error)
		}
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.conns != 1 {
		t.Errorf("%d connections for 5 sequential requests, want 1", srv.conns)
	}
}
