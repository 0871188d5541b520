package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client/preflight"
)

// TestPreflightReadsToTheEnd: the pre-flight asks for a handful of tokens
// and reads its answer to [DONE], so the server has finished it before the
// first measured request arrives. (The earlier pre-flight sent the real
// max_tokens and hung up after the first event, and a server that does not
// abort on a disconnect went on generating it into level 1.)
func TestPreflightReadsToTheEnd(t *testing.T) {
	t.Parallel()
	type seen struct {
		maxTokens  int
		start, end time.Time
	}
	var mu sync.Mutex
	var reqs []*seen
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
	})
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		s := &seen{start: time.Now()}
		var body struct {
			MaxTokens int `json:"max_tokens"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		s.maxTokens = body.MaxTokens
		mu.Lock()
		reqs = append(reqs, s)
		mu.Unlock()
		defer func() { mu.Lock(); s.end = time.Now(); mu.Unlock() }()
		w.Header().Set("Content-Type", "text/event-stream")
		const pre = `{"id":"x","object":"chat.completion.chunk","model":"m","choices":[{"index":0,`
		// Like a server that does not notice a disconnect: it generates
		// every token it was asked for, 10 ms apart, whoever listens.
		for range min(body.MaxTokens, 30) {
			fmt.Fprintf(w, "data: %s\"delta\":{\"content\":\"t \"},\"finish_reason\":null}]}\n\n", pre)
			w.(http.Flusher).Flush()
			time.Sleep(10 * time.Millisecond)
		}
		fmt.Fprintf(w, "data: %s\"delta\":{},\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n", pre)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--url", srv.URL+"/v1", "--levels", "1",
		"--requests", "1", "--max-tokens", "40", "--metrics-url", "off", "--out", t.TempDir())
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reqs) < 2 {
		t.Fatalf("the server saw %d requests, want the pre-flight and at least one measured", len(reqs))
	}
	if reqs[0].maxTokens != preflight.Tokens {
		t.Errorf("the pre-flight asked for max_tokens %d, want %d", reqs[0].maxTokens, preflight.Tokens)
	}
	if reqs[1].maxTokens != 40 {
		t.Errorf("the measured request asked for max_tokens %d, want 40", reqs[1].maxTokens)
	}
	if reqs[0].end.IsZero() || reqs[0].end.After(reqs[1].start) {
		t.Errorf("the pre-flight was still being served when level 1 began (ended %v, level 1 began %v)", reqs[0].end, reqs[1].start)
	}
}

// TestPreflightQueueFullGoesOn: llm-d-inference-sim's real "queue is full"
// (an error event with code 429 inside a 200 stream, captured in
// testdata/transcripts) on the pre-flight is the server's momentary state:
// a warning, and the sweep runs.
func TestPreflightQueueFullGoesOn(t *testing.T) {
	t.Parallel()
	capture, err := os.ReadFile(filepath.Join("..", "testdata", "transcripts", "llmd-queue-full-error.sse"))
	if err != nil {
		t.Fatal(err)
	}
	p := startPaced(t, time.Millisecond, time.Millisecond, 2, func(p *pacedServer) {
		p.fault = func(n int64) streamFault {
			if n == 1 {
				return streamFault{kind: faultRaw, event: string(capture)}
			}
			return streamFault{}
		}
	})
	out := t.TempDir()
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--url", p.url(), "--model", "paced",
		"--levels", "1", "--requests", "2", "--out", out)
	if code != ExitOK || !strings.Contains(stderr, "warning: the pre-flight request failed") || !strings.Contains(stderr, "queue is full") {
		t.Fatalf("exit %d, want 0 with a warning quoting the server\n%s", code, stderr)
	}
}

// TestUniformRefusalInStreamAborts: a server that refuses every measured
// request with an error event inside a 200 stream (context length, code
// 400), after a pre-flight that fit, stops the sweep at the first level
// with the reason and the flag to change, instead of repeating it at every
// level.
func TestUniformRefusalInStreamAborts(t *testing.T) {
	t.Parallel()
	p := startPaced(t, time.Millisecond, time.Millisecond, 2, func(p *pacedServer) {
		p.contextLen, p.inStream, p.unlisted = 1000, true, true
	})
	out := t.TempDir()
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--url", p.url(), "--model", "paced",
		"--levels", "2,4,8", "--requests", "8", "--max-tokens", "2000", "--out", out)
	if code != ExitFailure {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	line := lastLine(stderr)
	for _, w := range []string{"every request at concurrency 2 failed (stream_error)", "maximum context length is 1000",
		"prompt ~7 + max_tokens 2000 > context 1000: lower --max-tokens"} {
		if !strings.Contains(line, w) {
			t.Errorf("error line lacks %q: %s", w, line)
		}
	}
	if rows := readLevels(t, out); len(rows) != 1 || rows[0]["end_reason"] != "aborted" {
		t.Errorf("levels.csv = %v, want one aborted level", rows)
	}
	if n := p.requests.Load(); n > 1+4 {
		t.Errorf("the server saw %d requests; the sweep should stop after about C=2 refusals", n)
	}
}
