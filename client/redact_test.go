package client

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestRedactURL checks that no credential or query survives, even in a URL
// that does not parse, and that plain URLs are left as they are.
func TestRedactURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw, want string
		hidden    []string // must not appear
	}{
		{"http://u:p@h/v1", "http://h/v1", []string{"u:", ":p"}},
		{"http://h/v1?api-key=sk-SECRET", "http://h/v1?…", []string{"SECRET", "api-key"}},
		{"https://u:sk-SECRET@h:8443/v1?key=sk-Q#frag", "https://h:8443/v1?…", []string{"SECRET", "sk-Q", "frag"}},
		{"http://admin:p@ss%zz@host/v1", "http://host/v1", []string{"p@ss", "ss%zz", "admin"}},
		{"http://admin:p@ss@host/v1", "http://host/v1", []string{"p@ss", "admin"}},
		{"http://admin:p/ss@host/v1", "http://host/v1", []string{"p/ss", "admin"}},
		{"http://admin:12/34@host/v1", "http://host/v1", []string{"admin", "12"}}, // parses, with "@" in the path
		{"http://admin:p?ss@host/v1?k=v", "http://host/v1?…", []string{"p?ss", "admin"}},
		{"http://a:b@h:x/v1?token=sk-T", "http://h:x/v1?…", []string{"a:b", "sk-T"}},
		{"user:sk-SECRET@host:8000/v1", "host:8000/v1", []string{"SECRET", "user"}},
		{"sk-SECRET@host", "host", []string{"SECRET"}},
		{"http://u:sk-SECRET@", "(unparsable URL)", []string{"SECRET"}},
		{"http://h/v1?", "http://h/v1", nil},
		{"http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1", nil},
		{"https://api.example.com/v1/", "https://api.example.com/v1/", nil},
		{"http://[::1]:8000/v1", "http://[::1]:8000/v1", nil},
		{"localhost:8000", "localhost:8000", nil},
		{"127.0.0.1:8000/v1", "127.0.0.1:8000/v1", nil},
		{"", "", nil},
	}
	for _, tt := range tests {
		got := RedactURL(tt.raw)
		if got != tt.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tt.raw, got, tt.want)
		}
		for _, h := range tt.hidden {
			if strings.Contains(got, h) {
				t.Errorf("RedactURL(%q) = %q shows %q", tt.raw, got, h)
			}
		}
	}
}

// TestSensitiveHeader checks the words that mark a header as a credential.
func TestSensitiveHeader(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"Authorization": true, "Proxy-Authorization": true, "X-Api-Key": true, "api-key": true,
		"X-Auth-Token": true, "X-Client-Secret": true, "Cookie": true, "Set-Cookie": true,
		"X-Password": true, "X-Passwd": true, "X-Session-Id": true, "X-Amz-Security-Token": true,
		"X-Goog-Credential": true, "X-Signature": true, "OpenAI-Organization": false,
		"X-Tenant": false, "Content-Type": false, "Accept": false, "User-Agent": false,
	}
	for name, want := range tests {
		if got := SensitiveHeader(name); got != want {
			t.Errorf("SensitiveHeader(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestClientShowsRedactedURLs checks that the client's own messages and
// Config.Redacted use RedactURL, and that a credential in the base URL's
// query is scrubbed from what a server echoes.
func TestClientShowsRedactedURLs(t *testing.T) {
	t.Parallel()
	cfg := Config{BaseURL: "http://u:sk-PASS@127.0.0.1:1/v1?api-key=sk-QUERY", Model: "m",
		Headers: http.Header{"X-Session": {"sess-1"}}}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if want := "http://127.0.0.1:1/v1/chat/completions?…"; c.showEndpoint != want {
		t.Errorf("endpoint shown as %q, want %q", c.showEndpoint, want)
	}
	r := cfg.Redacted()
	if r.BaseURL != "http://127.0.0.1:1/v1?…" || r.Headers.Get("X-Session") != "[REDACTED]" {
		t.Errorf("Redacted: %+v", r)
	}
	out := c.scrub("echo: sk-QUERY sk-PASS sess-1") + fmt.Sprint(c)
	for _, s := range []string{"sk-QUERY", "sk-PASS", "sess-1"} {
		if strings.Contains(out, s) {
			t.Errorf("%q leaks in %q", s, out)
		}
	}
	_, err = New(Config{BaseURL: "http://admin:p@ss%zz@host:x/v1?key=sk-Q"})
	if err == nil || strings.Contains(err.Error(), "ss%zz") || strings.Contains(err.Error(), "sk-Q") {
		t.Errorf("New with an unparsable URL: %v", err)
	}
}
