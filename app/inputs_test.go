package app

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// captureServer is a chat server that records every request body and
// answers with a short, valid stream. When hangModels is set, GET
// /v1/models accepts and never answers until the client gives up.
type captureServer struct {
	srv *httptest.Server

	mu      sync.Mutex
	bodies  []string
	headers []http.Header
}

func startCapture(t *testing.T, hangModels bool) *captureServer {
	t.Helper()
	s := &captureServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		if hangModels {
			<-r.Context().Done()
			return
		}
		fmt.Fprint(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
	})
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.bodies = append(s.bodies, string(b))
		s.headers = append(s.headers, r.Header.Clone())
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		const pre = `data: {"id":"x","object":"chat.completion.chunk","model":"m","choices":[{"index":0,`
		fmt.Fprint(w, pre+`"delta":{"content":"a"},"finish_reason":null}]}`+"\n\n")
		fmt.Fprint(w, pre+`"delta":{"content":"b"},"finish_reason":"length"}]}`+"\n\n")
		fmt.Fprint(w, `data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`+"\n\ndata: [DONE]\n\n")
	})
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	return s
}

func (s *captureServer) url() string { return s.srv.URL + "/v1" }

func (s *captureServer) captured() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

// TestExtraBodyKeepsIntegers: integers in --extra-body reach the server as
// written, beyond float64's 2^53 and at the int64 edges, nested or not.
func TestExtraBodyKeepsIntegers(t *testing.T) {
	t.Parallel()
	s := startCapture(t, false)
	members := []string{`"seed":9007199254740993`, `"big":-9223372036854775808`, `"n":{"x":[18446744073709551615,1e400]}`, `"f":0.1000000000000000055511151231257827`}
	extra := "{" + strings.Join(members, ",") + "}"
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--url", s.url(), "--model", "m", "--levels", "1", "--requests", "1",
		"--warmup", "0", "--max-tokens", "2", "--metrics-url", "off", "--out", t.TempDir(), "--extra-body", extra)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	bodies := s.captured()
	if len(bodies) < 2 { // the pre-flight request and the measured one
		t.Fatalf("the server saw %d requests, want at least 2", len(bodies))
	}
	for _, b := range bodies {
		for _, m := range members {
			if !strings.Contains(b, m) {
				t.Errorf("request body lacks %s as written:\n%s", m, b)
			}
		}
	}
}

// TestHangingWarmupIsBounded: a /v1/models that never answers holds each
// level's connection warm-up for the connect timeout, not the request
// timeout, and a warning line says so for every level.
func TestHangingWarmupIsBounded(t *testing.T) {
	t.Parallel()
	s := startCapture(t, true)
	const connect, request = time.Second, 60 * time.Second
	start := time.Now()
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--url", s.url(), "--model", "m", "--levels", "1,2", "--requests", "2",
		"--max-tokens", "2", "--metrics-url", "off", "--out", t.TempDir(),
		"--connect-timeout", connect.String(), "--request-timeout", request.String())
	took := time.Since(start)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	// Two levels, each waiting the connect timeout, plus generous slack for
	// a busy machine; the old bound was the request timeout per level.
	if limit := 2*connect + 20*time.Second; took > limit {
		t.Errorf("the sweep took %v, want under %v: warm-up waited longer than the connect timeout", took, limit)
	}
	var warnings []string
	for _, l := range lines(stderr) {
		if strings.Contains(l, "warm-up") {
			warnings = append(warnings, l)
		}
	}
	if len(warnings) != 2 {
		t.Fatalf("want one warm-up warning per level (2), got %d:\n%s", len(warnings), stderr)
	}
	for i, w := range warnings {
		for _, want := range []string{"toksweep: warning: C=", "connection warm-up", "/v1/models", "no answer within " + connect.String(), "the level starts anyway"} {
			if !strings.Contains(w, want) {
				t.Errorf("warning %d lacks %q: %s", i+1, want, w)
			}
		}
	}
}

// TestHeaderWithCommas: one --header is one header, commas and all, and
// reaches the server as given.
func TestHeaderWithCommas(t *testing.T) {
	t.Parallel()
	s := startCapture(t, false)
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--url", s.url(), "--model", "m", "--levels", "1", "--requests", "1",
		"--warmup", "0", "--max-tokens", "2", "--metrics-url", "off", "--out", t.TempDir(),
		"--header", "X-Tags: a, b,c", "--header", "X-Tags: d")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.headers) == 0 {
		t.Fatal("the server saw no request")
	}
	for _, h := range s.headers {
		if got := h.Values("X-Tags"); len(got) != 2 || got[0] != "a, b,c" || got[1] != "d" {
			t.Errorf("X-Tags = %q, want [\"a, b,c\" \"d\"]", got)
		}
	}
}
