package promscrape

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/toksweep/toksweep/sim"
)

// simPayload is one /metrics body of the built-in simulator, fetched from
// an in-process serve-sim on 127.0.0.1 after a few requests, so that the
// histograms hold observations.
func simPayload(b *testing.B) []byte {
	b.Helper()
	cfg, err := sim.Preset("fast")
	if err != nil {
		b.Fatal(err)
	}
	srv, err := sim.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	addr, err := srv.Start(context.Background(), "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	resp, err := http.Get("http://" + addr.String() + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("HTTP %d: %v", resp.StatusCode, err)
	}
	return body
}

func benchParse(b *testing.B, body []byte) {
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		e, err := Parse(bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		if !Read(e).Known() {
			b.Fatal("nothing known")
		}
	}
}

// BenchmarkParse is parsing and reading alone: serve-sim's payload, and
// the checked-in captures of vLLM and llm-d-inference-sim.
func BenchmarkParse(b *testing.B) {
	b.Run("serve-sim", func(b *testing.B) { benchParse(b, simPayload(b)) })
	for _, name := range []string{"vllm-v1.txt", "llmd-v0.10.2.txt"} {
		body, err := os.ReadFile("testdata/" + name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) { benchParse(b, body) })
	}
}

// BenchmarkScrape is one whole scrape as a sweep takes it (request,
// response, parse, read) of serve-sim's payload, served from memory by a
// loopback httptest server so that the server's own cost is small.
func BenchmarkScrape(b *testing.B) {
	body := simPayload(b)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_, _ = w.Write(body)
	}))
	defer ts.Close()
	s := &Sampler{URL: ts.URL + "/metrics", Client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2}}}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Scrape(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
