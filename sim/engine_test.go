package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// timing is what a client sees of one streamed request.
type timing struct {
	start, end time.Time
	tokens     []time.Time // arrival of each event carrying tokens
	sent       []time.Time // when the server wrote each of them (x_sent_unix_ns), if it said
}

func (tm timing) ttft() time.Duration { return tm.tokens[0].Sub(tm.start) }

// decodeRate is (events−1)/(last − first): tokens per second after the
// first, with one token per event. It uses the times the server wrote the
// events when it stamped them, so that a client that reads late (a busy
// machine) does not bend the server's rate; else the arrivals.
func (tm timing) decodeRate() float64 {
	at := tm.tokens
	if len(tm.sent) == len(tm.tokens) {
		at = tm.sent
	}
	n := len(at)
	return float64(n-1) / at[n-1].Sub(at[0]).Seconds()
}

// timeStream sends a streaming chat request and times its token events on
// the client side.
func timeStream(t *testing.T, url, prompt string, maxTokens int) timing {
	t.Helper()
	tm, err := measureStream(url, prompt, maxTokens)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// measureStream is timeStream for goroutines other than the test's.
func measureStream(url, prompt string, maxTokens int) (timing, error) {
	tm := timing{start: time.Now()}
	evs, err := fetchStream(url+"/v1/chat/completions", chatBody(prompt, maxTokens))
	tm.end = time.Now()
	if err != nil {
		return tm, err
	}
	for _, e := range evs {
		var m map[string]any
		if json.Unmarshal([]byte(e.data), &m) == nil && chunkText(chatAPI, m) != "" {
			tm.tokens = append(tm.tokens, e.at)
			var stamp struct {
				Sent int64 `json:"x_sent_unix_ns"`
			}
			if json.Unmarshal([]byte(e.data), &stamp) == nil && stamp.Sent != 0 {
				tm.sent = append(tm.sent, time.Unix(0, stamp.Sent))
			}
		}
	}
	if len(tm.tokens) != maxTokens {
		return tm, fmt.Errorf("got %d token events, want %d", len(tm.tokens), maxTokens)
	}
	return tm, nil
}

// timeConcurrent runs c identical streams at once.
func timeConcurrent(t *testing.T, url string, c, maxTokens int) []timing {
	t.Helper()
	out := make([]timing, c)
	errs := make([]error, c)
	var wg sync.WaitGroup
	for i := range out {
		wg.Go(func() { out[i], errs[i] = measureStream(url, "hello", maxTokens) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return out
}

func within(got, want, tol float64) bool { return math.Abs(got-want) <= tol*want }

func TestSingleStreamDecodeRate(t *testing.T) {
	cfg := testConfig()
	cfg.DecodeBase, cfg.DecodePerSeq, cfg.DecodePerCtxToken = 4*time.Millisecond, 500*time.Microsecond, 2*time.Microsecond
	s, url := startSim(t, cfg)
	// 6 prompt tokens; step k lasts 4.5ms + 2µs×(6+k−1), so the mean step
	// after the first is 4.5ms + 2µs×(6+75) = 4.662ms.
	want := 1 / 4.662e-3
	eventuallyOn(t, serverLate(s), func() error {
		if got := timeStream(t, url, "hello", 150).decodeRate(); !within(got, want, 0.03) {
			return fmt.Errorf("decode rate %.1f tok/s, want %.1f ±3%%", got, want)
		}
		return nil
	})
}

func TestQueueingShowsAsTTFT(t *testing.T) {
	cfg := testConfig()
	cfg.MaxNumSeqs, cfg.DecodeBase = 2, 5*time.Millisecond
	s, url := startSim(t, cfg)
	eventuallyOn(t, serverLate(s), func() error {
		tms := timeConcurrent(t, url, 4, 20) // each request: 20 steps ≈ 100ms
		slices.SortFunc(tms, func(a, b timing) int { return int(a.ttft() - b.ttft()) })
		firstTotal := min(tms[0].end.Sub(tms[0].start), tms[1].end.Sub(tms[1].start))
		for i, tm := range tms {
			t.Logf("request %d: TTFT %v, total %v", i, tm.ttft(), tm.end.Sub(tm.start))
		}
		if tms[1].ttft() > 30*time.Millisecond {
			return fmt.Errorf("admitted requests' TTFT %v, want a step or two", tms[1].ttft())
		}
		if tms[2].ttft() < firstTotal*8/10 {
			return fmt.Errorf("queued requests' TTFT %v, want about the first ones' whole time %v", tms[2].ttft(), firstTotal)
		}
		return nil
	})
}

func TestRatesWithConcurrency(t *testing.T) {
	cfg := testConfig()
	cfg.DecodeBase, cfg.DecodePerSeq = 2*time.Millisecond, 500*time.Microsecond
	s, url := startSim(t, cfg)
	eventuallyOn(t, serverLate(s), func() error {
		var prevStream, prevAgg float64 = math.Inf(1), 0
		for _, c := range []int{1, 4, 8} {
			stream, agg := concurrentRates(t, url, c, 60)
			want := 1 / (2e-3 + 0.5e-3*float64(c))
			t.Logf("C=%d: per stream %.0f tok/s (model %.0f), aggregate %.0f tok/s", c, stream, want, agg)
			if !within(stream, want, 0.05) {
				return fmt.Errorf("C=%d: per-stream rate %.0f, want %.0f ±5%%", c, stream, want)
			}
			if stream >= prevStream || agg <= prevAgg {
				return fmt.Errorf("C=%d: per stream %.0f (was %.0f) should fall, aggregate %.0f (was %.0f) rise",
					c, stream, prevStream, agg, prevAgg)
			}
			prevStream, prevAgg = stream, agg
		}
		return nil
	})
}

// concurrentRates runs c streams at once and returns the mean per-stream
// decode rate and the aggregate rate (all tokens over the wall time).
func concurrentRates(t *testing.T, url string, c, maxTokens int) (stream, agg float64) {
	tms := timeConcurrent(t, url, c, maxTokens)
	start, end := tms[0].start, tms[0].end
	for _, tm := range tms {
		stream += tm.decodeRate() / float64(c)
		start, end = minTime(start, tm.start), maxTime(end, tm.end)
	}
	return stream, float64(maxTokens*c) / end.Sub(start).Seconds()
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func TestClientDisconnectFreesSlot(t *testing.T) {
	cfg := testConfig()
	cfg.MaxNumSeqs, cfg.DecodeBase, cfg.MaxModelLen = 1, 2*time.Millisecond, 2048
	s, url := startSim(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	body := chatBody("x", 1000) // 2s if left to run
	body["stream"] = true
	resp := post(t, ctx, url+"/v1/chat/completions", body)
	buf := make([]byte, 512)
	if _, err := resp.Body.Read(buf); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, %v", resp.StatusCode, err)
	}
	cancel()
	resp.Body.Close()
	waitFor(t, "the slot to free", func() bool { st := s.Stats(); return st.Running == 0 && st.Aborted == 1 })
	start := time.Now()
	resp = post(t, context.Background(), url+"/v1/chat/completions", chatBody("x", 5))
	resp.Body.Close()
	// A few 2 ms steps if the slot is free; the canceled request's 2 s if
	// not. The bound sits between, far from both, for a busy machine.
	if d := time.Since(start); resp.StatusCode != http.StatusOK || d > time.Second {
		t.Errorf("next request: status %d after %v, want 200 in a few steps, not after the canceled request's 2s", resp.StatusCode, d)
	}
}

func TestCloseLeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	s, err := New(testConfig())
	if err != nil {
		t.Fatal(err)
	}
	addr, err := s.Start(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	client := &http.Client{Transport: tr}
	url := "http://" + addr.String() + "/v1/chat/completions"
	resp, err := client.Post(url, "application/json", jsonReader(chatBody("x", 3)))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	body := chatBody("x", 200)
	body["stream"] = true
	resp, err = client.Post(url, "application/json", jsonReader(body)) // still streaming at Close
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	tr.CloseIdleConnections()
	waitFor(t, "goroutines to exit", func() bool { return runtime.NumGoroutine() <= before })
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestStartStopsWithContext(t *testing.T) {
	s, err := New(testConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addr, err := s.Start(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	waitFor(t, "the listener to close", func() bool {
		resp, err := http.Get("http://" + addr.String() + "/health")
		if err == nil {
			resp.Body.Close()
		}
		return err != nil
	})
	if _, err := s.Start(context.Background(), "127.0.0.1:0"); err == nil {
		t.Error("Start after Close succeeded")
	}
	s.Close()
}
