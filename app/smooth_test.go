package app

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// pausingServer streams `before` tokens itl apart, pauses, then streams
// `after` more itl apart, one token per chunk, and records when it sent
// each token chunk: the figures are checked against its own send times.
type pausingServer struct {
	before, after int
	itl, pause    time.Duration
	mu            sync.Mutex
	sent          []time.Time // the token chunks of the last request, flushed
}

func (p *pausingServer) chat(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	const pre = `{"id":"x","object":"chat.completion.chunk","model":"pausing","choices":[{"index":0,`
	send := func(s string) {
		fmt.Fprintf(w, "data: %s\n\n", s)
		fl.Flush()
	}
	var sent []time.Time
	next := time.Now()
	for i := range p.before + p.after {
		if i == p.before {
			next = next.Add(p.pause - p.itl)
		}
		time.Sleep(time.Until(next))
		send(pre + `"delta":{"content":"tok "},"finish_reason":null}]}`)
		sent = append(sent, time.Now())
		next = next.Add(p.itl)
	}
	send(pre + `"delta":{},"finish_reason":"length"}]}`)
	n := p.before + p.after
	send(fmt.Sprintf(`{"id":"x","object":"chat.completion.chunk","model":"pausing","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":%d,"total_tokens":%d}}`, n, n+7))
	send("[DONE]")
	p.mu.Lock()
	p.sent = sent
	p.mu.Unlock()
}

// TestSweepSeesAPause: a stream that pauses 2 s mid-way is one stall, and
// its reader (6 tok/s) waits for the pause less the tokens it had in hand.
// End to end over loopback: requests.jsonl, levels.csv and --slo-max-gap,
// against the server's own send times, with generous tolerances.
func TestSweepSeesAPause(t *testing.T) {
	t.Parallel()
	p := &pausingServer{before: 10, after: 10, itl: 20 * time.Millisecond, pause: 2 * time.Second}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", p.chat)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	out := t.TempDir()
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--url", srv.URL+"/v1", "--model", "pausing",
		"--levels", "1", "--requests", "1", "--warmup", "0", "--max-tokens", "20", "--metrics-url", "off",
		"--slo-max-gap", "1s", "--out", out)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	p.mu.Lock()
	sent := p.sent
	p.mu.Unlock()
	if len(sent) != 20 {
		t.Fatalf("server sent %d token chunks, want 20", len(sent))
	}
	gap := sent[10].Sub(sent[9])                                      // the pause, as sent
	wait := sent[10].Sub(sent[0]).Seconds() - 10.0/6                  // the reader read 10 tokens before it
	wantRatio := wait / (20.0 / 6)                                    // ≈ 0.15
	const gapTol, ratioTol = 300 * time.Millisecond, 0.3 / (20.0 / 6) // 0.3 s of waiting either way

	b, err := os.ReadFile(filepath.Join(out, "requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var line struct {
		MaxGapMs      float64 `json:"max_gap_ms"`
		Stalls        int     `json:"stalls"`
		RebufferRatio float64 `json:"rebuffer_ratio"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(string(b))), &line); err != nil {
		t.Fatalf("requests.jsonl: %v", err)
	}
	got := time.Duration(line.MaxGapMs * float64(time.Millisecond))
	t.Logf("server: gap %v, reader wait %.3fs; requests.jsonl: max_gap_ms %.3f, stalls %d, rebuffer_ratio %.4f (want %.4f)",
		gap, wait, line.MaxGapMs, line.Stalls, line.RebufferRatio, wantRatio)
	if got < gap-gapTol || got > gap+gapTol || line.Stalls != 1 || math.Abs(line.RebufferRatio-wantRatio) > ratioTol {
		t.Errorf("requests.jsonl: max gap %v, stalls %d, rebuffer ratio %.3f; server sent a %v gap, want 1 stall and ratio %.3f",
			got, line.Stalls, line.RebufferRatio, gap, wantRatio)
	}
	row := readLevels(t, out)[0]
	if g := num(t, row, "max_gap_p95_ms"); math.Abs(g-line.MaxGapMs) > 0.001 ||
		row["stall_share"] != "1.0000" || row["smooth_share"] != "0.0000" ||
		math.Abs(num(t, row, "rebuffer_ratio_p95")-line.RebufferRatio) > 0.0001 {
		t.Errorf("levels.csv: max gap p95 %s, stall share %s, smooth share %s, rebuffer p95 %s; want the one request's figures",
			row["max_gap_p95_ms"], row["stall_share"], row["smooth_share"], row["rebuffer_ratio_p95"])
	}
	if row["slo_pass"] != "false" || !strings.HasPrefix(row["slo_failed"], "max_gap_p95 ") {
		t.Errorf("--slo-max-gap 1s: slo_pass %q, slo_failed %q", row["slo_pass"], row["slo_failed"])
	}
}

// TestSLOMaxGapFlag: a bad --slo-max-gap is a one-line usage error.
func TestSLOMaxGapFlag(t *testing.T) {
	t.Parallel()
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--sim", "--slo-max-gap", "-1s", "--out", t.TempDir())
	if code != ExitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "invalid --slo-max-gap -1s") {
		t.Errorf("exit %d, stderr %q: want a one-line usage error naming --slo-max-gap", code, stderr)
	}
}
