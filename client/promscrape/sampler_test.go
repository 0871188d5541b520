package promscrape

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/internal/testkit/rawserver"
	"github.com/toksweep/toksweep/sim"
)

// TestSamplerAgainstSimulator scrapes the built-in simulator while a burst
// of requests queues behind a 2-slot batch, and checks that the level's
// metrics see the queue and every request's TTFT.
func TestSamplerAgainstSimulator(t *testing.T) {
	cfg, err := sim.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxNumSeqs = 2
	srv, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	addr, err := srv.Start(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + addr.String()
	cl, err := client.New(client.Config{BaseURL: base + "/v1", Model: cfg.Model, MaxTokens: 150, MaxConns: 6})
	if err != nil {
		t.Fatal(err)
	}

	s := &Sampler{URL: base + "/metrics", Interval: 20 * time.Millisecond}
	stop := s.Start(context.Background())
	const n = 6
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if r := cl.Do(context.Background(), client.Prompt{Text: "one two three"}); !r.OK() {
				t.Errorf("request failed: %s", r.Error)
			}
		})
	}
	wg.Wait()
	m := stop()

	if m.Failures != 0 || m.Scrapes < 3 {
		t.Fatalf("%d scrapes, %d failures (%s)", m.Scrapes, m.Failures, m.Error)
	}
	if r := m.Running.Mean(); r <= 0 || r > 2 {
		t.Errorf("running mean %.2f, want in (0, 2]", r)
	}
	if w := m.Waiting.Mean(); w <= 0 {
		t.Errorf("waiting mean %.2f, want > 0 with %d requests on 2 slots", w, n)
	}
	if m.TTFT.Count != n || m.Queue.Count != n {
		t.Errorf("TTFT count %d, queue count %d, want %d each", m.TTFT.Count, m.Queue.Count, n)
	}
	if q, _ := m.Queue.Mean(); q <= 0 {
		t.Errorf("queue mean %v, want > 0", q)
	}
	if ttft, _ := m.TTFT.Mean(); ttft <= 0 {
		t.Errorf("TTFT mean %v", ttft)
	}
}

func TestSamplerCountsFailures(t *testing.T) {
	var hits sync.Map
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Store(r.URL.Path, true)
		switch r.URL.Path {
		case "/metrics":
			fmt.Fprint(w, "vllm:num_requests_running 1\n")
		case "/html":
			fmt.Fprint(w, "<html>hello</html>")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)

	tests := []struct{ path, want string }{
		{"/missing", "HTTP 404 Not Found"},
		{"/html", "not a Prometheus text exposition"},
	}
	for _, tt := range tests {
		u := strings.Replace(srv.URL, "http://", "http://user:secret@", 1) + tt.path
		m := (&Sampler{URL: u, Interval: time.Hour}).Start(context.Background())()
		if m.Failures != 2 || !strings.Contains(m.Error, tt.want) || strings.Contains(m.Error, "secret") {
			t.Errorf("%s: %d failures, error %q", tt.path, m.Failures, m.Error)
		}
	}
	// Nothing listening: the transport's error, without the URL's
	// credentials (which *url.Error would quote).
	dead := "http://user:secret@" + rawserver.Closed(t) + "/metrics"
	if m := (&Sampler{URL: dead, Interval: time.Hour}).Start(context.Background())(); m.Failures != 2 || !strings.Contains(m.Error, "refused") || strings.Contains(m.Error, "secret") {
		t.Errorf("nothing listening: %d failures, error %q", m.Failures, m.Error)
	}
	// A failing endpoint fails on every tick too, not only at the start
	// and the end.
	for wait := 30 * time.Millisecond; ; wait *= 2 {
		failing := (&Sampler{URL: srv.URL + "/missing", Interval: 5 * time.Millisecond}).Start(context.Background())
		time.Sleep(wait)
		if m := failing(); m.Failures > 2 || wait >= 2*time.Second {
			if m.Failures <= 2 || m.Scrapes != 0 {
				t.Errorf("failing endpoint ticked: %+v", m)
			}
			break
		}
	}
	// A busy machine may let no tick's scrape finish in the first wait:
	// each attempt waits longer.
	for wait := 30 * time.Millisecond; ; wait *= 2 {
		ok := (&Sampler{URL: srv.URL + "/metrics", Interval: 5 * time.Millisecond}).Start(context.Background())
		time.Sleep(wait)
		m := ok()
		if m.Scrapes == 0 && m.Failures == 0 && wait < 2*time.Second {
			continue
		}
		if m.Failures != 0 || m.Scrapes == 0 || m.Running.Mean() != 1 {
			t.Errorf("healthy endpoint: %+v", m)
		}
		break
	}
}

func TestSamplerSendsHeaderAndAcceptsText(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		fmt.Fprint(w, "x 1\n")
	}))
	t.Cleanup(srv.Close)
	s := &Sampler{URL: srv.URL, Header: http.Header{"Authorization": {"Bearer k"}}}
	if _, err := s.Scrape(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got.Get("Authorization") != "Bearer k" || !strings.HasPrefix(got.Get("Accept"), "text/plain") {
		t.Errorf("headers %v", got)
	}
}
