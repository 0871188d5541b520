package client

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// TestHeaderRules: the header rules agree with what net/http sends, and New
// refuses headers it could never send, without quoting their values.
func TestHeaderRules(t *testing.T) {
	names := map[string]bool{
		"X-Request-Source": true, "x_y.z~1": true, "!#$%&'*+-.^_`|~": true,
		"": false, "X A": false, "X(A)": false, "X:A": false, "X\nA": false, "X\x00": false, "Ünïcode": false, "X\"A": false,
	}
	for n, want := range names {
		if got := ValidHeaderName(n); got != want {
			t.Errorf("ValidHeaderName(%q) = %v, want %v", n, got, want)
		}
		req, _ := http.NewRequest(http.MethodGet, "http://"+closedPort(t), nil)
		req.Header[n] = []string{"v"}
		_, err := http.DefaultTransport.RoundTrip(req)
		if refused := err != nil && strings.Contains(err.Error(), "invalid header field name"); refused == want {
			t.Errorf("net/http refuses %q: %v, ValidHeaderName says %v", n, refused, want)
		}
	}
	values := map[string]bool{
		"": true, "a b\tc": true, "ünï €": true, "\x80\xff": true,
		"a\r\nX-Evil: 1": false, "a\n": false, "a\r": false, "a\x00b": false, "a\x01": false, "a\x7f": false,
	}
	for v, want := range values {
		if got := ValidHeaderValue(v); got != want {
			t.Errorf("ValidHeaderValue(%q) = %v, want %v", v, got, want)
		}
		// net/http's own check, on a real request to a closed port: it
		// refuses an invalid value before dialing, and only then.
		req, _ := http.NewRequest(http.MethodGet, "http://"+closedPort(t), nil)
		req.Header.Set("X-Test", v)
		_, err := http.DefaultTransport.RoundTrip(req)
		if refused := err != nil && strings.Contains(err.Error(), "invalid header field value"); refused == want {
			t.Errorf("net/http refuses %q: %v, ValidHeaderValue says %v", v, refused, want)
		}
	}
	for _, h := range []http.Header{{"X A": {"v"}}, {"X-A": {"sk-secret\r\nX-B: c"}}} {
		_, err := New(Config{BaseURL: "http://127.0.0.1:1/v1", Headers: h})
		if err == nil || strings.Contains(err.Error(), "sk-secret") || strings.Contains(err.Error(), "\n") {
			t.Errorf("New with %q: %v, want a one-line error without the value", h, err)
		}
	}
}

// A Host header is sent as the request's Host (net/http ignores a Host in
// req.Header, so --header "Host: x" was recorded and never sent: issue 25,
// item 18), on the streamed request and on the model list alike.
func TestHostHeaderIsSent(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var hosts []string
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hosts = append(hosts, r.Host)
		mu.Unlock()
		respond(http.StatusNotFound, `{"error":{"message":"no"}}`)(w, r)
	})
	c := newClient(t, srv.URL, Config{Headers: http.Header{"Host": {"llm.example"}}})
	rec := c.Do(context.Background(), Prompt{Text: "hi", MaxTokens: 1})
	if rec.Status != http.StatusNotFound {
		t.Fatalf("status %d (%s)", rec.Status, rec.Error)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(hosts) != 1 || hosts[0] != "llm.example" {
		t.Errorf("the server saw Host %q, want llm.example", hosts)
	}
}
