package client

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestNewValidates checks the configuration errors New reports.
func TestNewValidates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cfg  Config
		want string // "" for no error
	}{
		{Config{BaseURL: "http://127.0.0.1:8000/v1"}, ""},
		{Config{BaseURL: "https://api.example.com/v1/", API: Completions}, ""},
		{Config{BaseURL: "127.0.0.1:8000/v1"}, `invalid base URL "127.0.0.1:8000/v1": `},
		{Config{BaseURL: "localhost:8000"}, `invalid base URL "localhost:8000": the scheme must be http or https`},
		{Config{BaseURL: "http:///v1"}, `invalid base URL "http:///v1": no host`},
		{Config{BaseURL: "http://a:b@h:x/v1"}, `invalid base URL "http://h:x/v1": invalid port ":x" after host`},
		{Config{BaseURL: "http://h/v1", API: "embeddings"}, `unknown API "embeddings" (want "chat" or "completions")`},
		{Config{BaseURL: "http://h/v1", APIKey: "sk\n"}, "the API key contains control characters"},
		{Config{BaseURL: "http://h/v1", ExtraBody: map[string]any{"f": func() {}}}, "request body: json: unsupported type"},
	}
	for _, tt := range tests {
		_, err := New(tt.cfg)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)) {
			t.Errorf("%+v: %v, want %q", tt.cfg.Redacted(), err, tt.want)
		}
	}
}

// TestClock checks that Now runs from the epoch New took.
func TestClock(t *testing.T) {
	t.Parallel()
	before := time.Now()
	c, err := New(Config{BaseURL: "http://h/v1"})
	if err != nil {
		t.Fatal(err)
	}
	if now := c.Now(); c.Epoch().Before(before) || time.Since(c.Epoch()) < now {
		t.Errorf("epoch %v, now %v", c.Epoch(), c.Now())
	}
	if a, b := c.Now(), c.Now(); a <= 0 || b < a {
		t.Errorf("Now went %v then %v", a, b)
	}
}

// TestTransport checks the connection pool settings that timing depends on.
func TestTransport(t *testing.T) {
	t.Parallel()
	tr := newTransport(Config{MaxConns: 100, Insecure: true})
	if tr.MaxIdleConnsPerHost < 100 || tr.MaxConnsPerHost != 0 || !tr.DisableCompression ||
		tr.ForceAttemptHTTP2 || tr.TLSNextProto == nil || !tr.TLSClientConfig.InsecureSkipVerify ||
		tr.TLSHandshakeTimeout != defaultConnectTimeout {
		t.Errorf("transport %+v", tr)
	}
	if newTransport(Config{}).TLSClientConfig.InsecureSkipVerify {
		t.Error("TLS verification is off by default")
	}
}

// TestRedacted checks that a redacted Config keeps nothing secret.
func TestRedacted(t *testing.T) {
	t.Parallel()
	cfg := Config{BaseURL: "http://u:p4ss@h/v1", APIKey: "sk-1", Model: "m",
		Headers: http.Header{"X-Api-Key": {"sk-2"}, "Authorization": {"Bearer sk-3"}, "X-Tenant": {"t"}}}
	r := cfg.Redacted()
	if r.BaseURL != "http://h/v1" || r.APIKey != "[REDACTED]" || r.Model != "m" ||
		r.Headers.Get("X-Api-Key") != "[REDACTED]" || r.Headers.Get("Authorization") != "[REDACTED]" ||
		r.Headers.Get("X-Tenant") != "t" || cfg.Headers.Get("X-Api-Key") != "sk-2" {
		t.Errorf("%+v", r)
	}
}
