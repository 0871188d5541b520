package sim

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// waitFor polls cond until it holds or two seconds pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// background starts a streaming chat request that the test cancels at the
// end; it returns once the response headers are in.
func background(t *testing.T, url string, maxTokens int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	body := chatBody("x", maxTokens)
	body["stream"] = true
	resp := post(t, ctx, url+"/v1/chat/completions", body)
	go func() { _, _ = io.Copy(io.Discard, resp.Body) }()
	t.Cleanup(func() { cancel(); resp.Body.Close() })
}

// With one sequence running and one waiting, a third request is answered
// 429. The two background sequences take 200 steps of 150 ms (30 s), so
// neither can end before the third request arrives however slow the
// machine (at 1 ms steps the running one ended 200 ms after it started, and
// a test held up that long saw the waiting one admitted and no 429); the
// test cancels them as it ends.
func TestQueueLimit429(t *testing.T) {
	cfg := testConfig()
	cfg.MaxNumSeqs, cfg.QueueLimit429 = 1, 1
	cfg.DecodeBase = 150 * time.Millisecond
	s, url := startSim(t, cfg)
	background(t, url, 200)
	waitFor(t, "one running", func() bool { return s.Stats().Running == 1 })
	background(t, url, 200)
	waitFor(t, "one waiting", func() bool { return s.Stats().Waiting == 1 })
	checkError(t, post(t, context.Background(), url+"/v1/chat/completions", chatBody("x", 2)),
		http.StatusTooManyRequests, "RateLimitError", "busy")
}

func TestInjectedDisconnect(t *testing.T) {
	t.Parallel() // counts events; the half second of slack is for a busy machine
	cfg := testConfig()
	// Cut after 500 of 1000 one-millisecond steps: the other 500 leave the
	// handler half a second to report the cut before the sequence could
	// finish on its own (it would be served, not aborted), even on a busy
	// machine.
	cfg.DisconnectRate, cfg.MaxModelLen = 1, 2048
	s, url := startSim(t, cfg)
	body := chatBody("x", 1000)
	body["stream"] = true
	resp := post(t, context.Background(), url+"/v1/chat/completions", body)
	defer resp.Body.Close()
	evs, err := readSSE(resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("stream ended with %v, want unexpected EOF", err)
	}
	if len(evs) != 501 || evs[len(evs)-1].data == "[DONE]" { // role + 500 of 1000 tokens
		t.Errorf("got %d events before the cut, want role + 500 tokens", len(evs))
	}
	waitFor(t, "the cut sequence to leave the batch", func() bool {
		st := s.Stats()
		return st.Aborted == 1 && st.Running == 0
	})
}

func TestInjectedMalformedChunk(t *testing.T) {
	cfg := testConfig()
	cfg.MalformedRate = 1
	_, url := startSim(t, cfg)
	evs := streamReq(t, url+"/v1/chat/completions", chatBody("x", 10))
	bad, words := 0, 0
	for _, e := range evs[:len(evs)-1] {
		var m map[string]any
		if json.Unmarshal([]byte(e.data), &m) != nil {
			bad++
			continue
		}
		words += len(strings.Fields(chunkText(chatAPI, m)))
	}
	if bad != 1 || words != 10 || evs[len(evs)-1].data != "[DONE]" {
		t.Errorf("%d malformed events, %d words, last %q: want 1, 10, [DONE]", bad, words, evs[len(evs)-1].data)
	}
}

// TestInjectionIsSeeded checks that the same seed gives the same failures.
func TestInjectionIsSeeded(t *testing.T) {
	statuses := func(seed int64) []int {
		cfg := testConfig()
		cfg.ErrorRate500, cfg.Seed = 0.5, seed
		_, url := startSim(t, cfg)
		var got []int
		for range 16 {
			resp := post(t, context.Background(), url+"/v1/completions", map[string]any{"prompt": "x", "max_tokens": 1})
			resp.Body.Close()
			got = append(got, resp.StatusCode)
		}
		return got
	}
	a, b, c := statuses(7), statuses(7), statuses(8)
	if !slices.Equal(a, b) {
		t.Errorf("same seed, different failures: %v vs %v", a, b)
	}
	if !slices.Contains(a, 500) || !slices.Contains(a, 200) {
		t.Errorf("rate 0.5 gave %v", a)
	}
	if slices.Equal(a, c) {
		t.Errorf("seeds 7 and 8 gave the same failures %v", a)
	}
}
