package client

import (
	"context"
	"strings"
	"testing"
)

// TestEmptyAnswer: a stream that ends properly but carries no token at all
// (a role chunk, a finish chunk, [DONE]) is a failure of class empty, not a
// success with zero tokens; a stream with one token is a success.
func TestEmptyAnswer(t *testing.T) {
	t.Parallel()
	role := `data: {"choices":[{"index":0,"delta":{"role":"assistant"}}]}` + "\n\n"
	finish := `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n"
	token := `data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}` + "\n\n"
	done := "data: [DONE]\n\n"
	tests := []struct {
		name, body string
		class      ErrorClass
	}{
		{"only [DONE]", done, Empty},
		{"role, finish, [DONE]", role + finish + done, Empty},
		{"finish without [DONE]", role + finish, Empty},
		{"one token", role + token + finish + done, OK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, replay(splitEvents([]byte(tt.body)), pace{}, nil))
			rec := newClient(t, srv.URL, Config{}).Do(context.Background(), Prompt{Text: "x"})
			if rec.ErrorClass != tt.class {
				t.Fatalf("class %q (%s), want %q", rec.ErrorClass, rec.Error, tt.class)
			}
			if tt.class == Empty && !strings.HasPrefix(rec.Error, "empty answer: the stream ended") {
				t.Errorf("error %q", rec.Error)
			}
		})
	}
}
