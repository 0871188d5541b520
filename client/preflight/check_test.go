package preflight

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
)

// stalling is the /v1 URL of a server that accepts every request and
// never answers it, until the test ends.
func stalling(t *testing.T) string {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(func() { close(done); srv.Close() })
	return srv.URL + "/v1"
}

// TestPreflightWaitIsShown: a server that accepts the pre-flight request
// and never answers is named on stderr while toksweep waits, and the
// pre-flight gives up at its own deadline, not --request-timeout's.
func TestPreflightWaitIsShown(t *testing.T) {
	t.Parallel()
	url := stalling(t)
	cfg := client.Config{BaseURL: url, Model: "paced", MaxTokens: 16, ConnectTimeout: 100 * time.Millisecond, RequestTimeout: 10 * time.Minute}
	cl, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	start := time.Now()
	target := Target{Config: cfg, ContextLen: 4096, Wait: 600 * time.Millisecond, Notice: 100 * time.Millisecond}
	_, err = Run(context.Background(), cl, target, client.Prompt{Text: "hi"}, &stderr)
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "no answer from "+url+" within 700ms, the pre-flight request's deadline") {
		t.Errorf("err = %v, want the pre-flight's own deadline", err)
	}
	if took > 30*time.Second {
		t.Errorf("the pre-flight took %v", took)
	}
	out := stderr.String()
	if !strings.Contains(out, "toksweep: the pre-flight request to "+url+" has had no answer for") ||
		!strings.Contains(out, "(it gives up at 700ms)") {
		t.Errorf("stderr does not show the wait:\n%s", out)
	}
	if strings.Contains(out, "\r") {
		t.Errorf("a carriage return outside a terminal:\n%q", out)
	}
}

// The pre-flight asks for Tokens, never more than a measured
// request (--max-tokens) and never under the --min-tokens floor.
func TestPreflightOutput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		max  int
		body map[string]any
		want int
	}{
		{2048, nil, Tokens}, {0, nil, Tokens}, {8, nil, 8},
		{2048, map[string]any{"min_tokens": 50}, 50}, {8, map[string]any{"min_tokens": float64(12)}, 12},
	} {
		if got := Output(tc.max, tc.body); got != tc.want {
			t.Errorf("--max-tokens %d, extra body %v: %d, want %d", tc.max, tc.body, got, tc.want)
		}
	}
}
