package client

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// connCount is how many connections s has accepted.
func (s *server) connCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns
}

// TestRedirectNotFollowed checks that a 3xx comes back as it is, an HTTP4xx
// naming where it pointed, and that nothing, the API key least of all, goes
// to the other server.
func TestRedirectNotFollowed(t *testing.T) {
	t.Parallel()
	for _, status := range []int{301, 302, 303, 307, 308} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			t.Parallel()
			other := newServer(t, respond(200, `{"data":[]}`))
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other.URL+r.URL.Path+"?api-key=sk-OTHER", status)
			})
			c := newClient(t, srv.URL, Config{APIKey: "sk-KEY", Headers: http.Header{"X-Api-Key": {"k2"}}})
			rec := c.Do(context.Background(), Prompt{Text: "hi"})
			want := "HTTP " + strconv.Itoa(status) + ": " + http.StatusText(status) +
				" (a redirect to " + other.URL + "/v1/chat/completions?…, not followed)"
			if rec.ErrorClass != HTTP4xx || rec.Status != status || rec.Error != want {
				t.Errorf("Do: %q %d %q\nwant %q %d %q", rec.ErrorClass, rec.Status, rec.Error, HTTP4xx, status, want)
			}
			var re *RequestError
			if err := c.Probe(context.Background(), Prompt{Text: "hi"}); !errors.As(err, &re) || re.Status != status {
				t.Errorf("Probe: %v", err)
			}
			_, err := c.ListModels(context.Background())
			if !errors.As(err, &re) || re.Class != HTTP4xx || re.Status != status || strings.Contains(err.Error(), "sk-OTHER") {
				t.Errorf("ListModels: %v", err)
			}
			if err := c.WarmConns(context.Background(), 2); err != nil {
				t.Errorf("WarmConns: %v", err)
			}
			if n := other.connCount(); n != 0 {
				t.Errorf("the redirect was followed: the other server saw %d connections", n)
			}
		})
	}
}

// TestWarmConns checks that WarmConns leaves n connections idle, whatever
// the status of /models, so that n requests at once open none.
func TestWarmConns(t *testing.T) {
	t.Parallel()
	events := splitEvents(readFile(t, sseDir, "empty-finish.sse"))
	tests := []struct {
		name   string
		models http.HandlerFunc
	}{
		{"200", respond(200, `{"object":"list","data":[{"id":"demo-model"}]}`)},
		{"404", respond(404, `{"detail":"Not Found"}`)},
		{"401", respond(401, `{"error":{"message":"invalid API key"}}`)},
	}
	const n = 4
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Each stream lasts 50 ms, so that the n requests overlap.
			stream := replay(events, pace{first: 50 * time.Millisecond}, nil)
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				if strings.HasSuffix(r.URL.Path, "/models") {
					tt.models(w, r)
					return
				}
				stream(w, r)
			})
			c := newClient(t, srv.URL, Config{APIKey: "sk-KEY", MaxConns: n})
			if err := c.WarmConns(context.Background(), n); err != nil {
				t.Fatalf("WarmConns: %v", err)
			}
			if _, h := srv.last(); srv.lastPath() != "/v1/models" || h.Get("Authorization") != "Bearer sk-KEY" {
				t.Errorf("warm-up request %s with headers %v", srv.lastPath(), h)
			}
			if got := srv.connCount(); got != n {
				t.Errorf("WarmConns(%d) opened %d connections", n, got)
			}
			doAtOnce(t, c, n)
			if got := srv.connCount(); got != n {
				t.Errorf("%d requests at once after WarmConns(%d) opened %d more connections", n, n, got-n)
			}
		})
	}
}

// doAtOnce runs n requests at the same time and checks that they succeed.
func doAtOnce(t *testing.T, c *Client, n int) {
	t.Helper()
	var wg sync.WaitGroup
	recs := make([]Record, n)
	for i := range n {
		wg.Go(func() { recs[i] = c.Do(context.Background(), Prompt{Text: "hi"}) })
	}
	wg.Wait()
	for i, rec := range recs {
		if !rec.OK() || len(rec.ChunkAt) != 3 {
			t.Errorf("request %d: %s %s, %d chunks", i, rec.ErrorClass, rec.Error, len(rec.ChunkAt))
		}
	}
}

// TestWarmConnsFailure checks that a warm-up that cannot connect says so in
// an error for the log, without credentials, and that n ≤ 0 does nothing.
func TestWarmConnsFailure(t *testing.T) {
	t.Parallel()
	addr := closedPort(t)
	c := newClient(t, "http://user:sk-PASS@"+addr, Config{APIKey: "sk-KEY"})
	if err := c.WarmConns(context.Background(), 0); err != nil {
		t.Errorf("WarmConns(0): %v", err)
	}
	err := c.WarmConns(context.Background(), 3)
	want := "connection warm-up: 3 of 3 requests failed, the first: cannot connect to http://" + addr + "/v1: connection refused"
	var re *RequestError
	if err == nil || err.Error() != want || !errors.As(err, &re) || re.Class != Connect {
		t.Errorf("WarmConns: %v\nwant %s", err, want)
	}
}
