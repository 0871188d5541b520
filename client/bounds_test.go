package client

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"
)

// flood streams xChunk events as fast as it can until the client goes, and
// reports on done when it saw the client go.
func flood(done chan<- struct{}) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		defer close(done)
		w.Header().Set("Content-Type", "text/event-stream")
		batch := []byte(strings.Repeat(xChunk, 64))
		for r.Context().Err() == nil {
			if _, err := w.Write(batch); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}
}

// TestEndlessStreamOverrun checks that a 200 stream of valid chunks that
// never ends is cut at the request's event bound, holds no more than that
// many timestamps, is classed overrun, and that its connection is closed
// (the server sees the client go) long before the request timeout.
func TestEndlessStreamOverrun(t *testing.T) {
	t.Parallel()
	for _, maxTokens := range []int{100, 0} {
		t.Run(fmt.Sprint("max_tokens=", maxTokens), func(t *testing.T) {
			t.Parallel()
			done := make(chan struct{})
			srv := newServer(t, flood(done))
			c := newClient(t, srv.URL, Config{MaxTokens: maxTokens, RequestTimeout: time.Minute})
			rec := c.Do(context.Background(), Prompt{Text: "hi"})
			want := maxEvents(maxTokens)
			if maxTokens == 0 {
				want = defaultMaxEvents
			}
			if rec.ErrorClass != Overrun || !strings.Contains(rec.Error, fmt.Sprintf("more than %d events", want)) {
				t.Errorf("got %q %q, want overrun after %d events", rec.ErrorClass, rec.Error, want)
			}
			if len(rec.ChunkAt) != want || cap(rec.ChunkAt) > 2*want {
				t.Errorf("holds %d timestamps (capacity %d), want %d", len(rec.ChunkAt), cap(rec.ChunkAt), want)
			}
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Error("the server still streams: the connection was not closed")
			}
		})
	}
}

// TestEventBoundFits checks that a stream with exactly as many events as
// the bound allows, and then [DONE], succeeds: the bound has no off-by-one.
func TestEventBoundFits(t *testing.T) {
	t.Parallel()
	const maxTokens = 10
	n := maxEvents(maxTokens)
	body := strings.Repeat(xChunk, n-1) + `data: {"choices":[{"delta":{},"finish_reason":"length"}]}` + "\n\ndata: [DONE]\n\n"
	srv := newServer(t, respond(200, body))
	c := newClient(t, srv.URL, Config{MaxTokens: maxTokens})
	if rec := c.Do(context.Background(), Prompt{Text: "hi"}); rec.ErrorClass != OK || len(rec.ChunkAt) != n-1 {
		t.Errorf("%d events: got %q %q with %d chunks", n, rec.ErrorClass, rec.Error, len(rec.ChunkAt))
	}
	body = xChunk + body
	srv = newServer(t, respond(200, body))
	c = newClient(t, srv.URL, Config{MaxTokens: maxTokens})
	if rec := c.Do(context.Background(), Prompt{Text: "hi"}); rec.ErrorClass != Overrun || len(rec.ChunkAt) != n {
		t.Errorf("%d events: got %q %q with %d chunks, want overrun", n+1, rec.ErrorClass, rec.Error, len(rec.ChunkAt))
	}
}

// TestHugeServerStrings checks that a 3 MB finish_reason and a 3 MB error
// message are kept cut to their bounds.
func TestHugeServerStrings(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("é", 3<<20/2) // two bytes per rune: a cut must not split one
	srv := newServer(t, respond(200, xChunk+`data: {"choices":[{"delta":{},"finish_reason":"`+huge+`"}]}`+"\n\ndata: [DONE]\n\n"))
	rec := newClient(t, srv.URL, Config{}).Do(context.Background(), Prompt{Text: "hi"})
	if rec.ErrorClass != OK || rec.FinishReason != huge[:maxFinishReason] {
		t.Errorf("got %q %q, finish_reason of %d bytes, want %d", rec.ErrorClass, rec.Error, len(rec.FinishReason), maxFinishReason)
	}
	srv = newServer(t, respond(200, xChunk+`data: {"error":{"message":"`+huge+`"}}`+"\n\n"))
	rec = newClient(t, srv.URL, Config{}).Do(context.Background(), Prompt{Text: "hi"})
	if rec.ErrorClass != StreamError || len(rec.Error) > maxMessage+100 {
		t.Errorf("got %q, error of %d bytes", rec.ErrorClass, len(rec.Error))
	}
}

// TestEndlessLine checks that a server sending one line without end is
// cut at the line bound as overrun, long before the request timeout.
func TestEndlessLine(t *testing.T) {
	t.Parallel()
	done := make(chan struct{})
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		defer close(done)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(xChunk + "data: {\"choices\":[{\"delta\":{\"content\":\""))
		line := []byte(strings.Repeat("x", 32<<10))
		for r.Context().Err() == nil {
			if _, err := w.Write(line); err != nil {
				return
			}
		}
	})
	c := newClient(t, srv.URL, Config{RequestTimeout: time.Minute})
	rec := c.Do(context.Background(), Prompt{Text: "hi"})
	if rec.ErrorClass != Overrun || !strings.Contains(rec.Error, "longer than 4 MiB") || len(rec.ChunkAt) != 1 {
		t.Errorf("got %q %q with %d chunks, want overrun after 1", rec.ErrorClass, rec.Error, len(rec.ChunkAt))
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Error("the server still streams: the connection was not closed")
	}
}

// TestHugeUsage checks that int64-sized usage counts are recorded as sent
// but not used as the output size.
func TestHugeUsage(t *testing.T) {
	t.Parallel()
	const big = "9223372036854775807"
	srv := newServer(t, respond(200, xChunk+xChunk+
		`data: {"choices":[],"usage":{"prompt_tokens":`+big+`,"completion_tokens":`+big+`}}`+"\n\ndata: [DONE]\n\n"))
	rec := newClient(t, srv.URL, Config{}).Do(context.Background(), Prompt{Text: "hi"})
	if rec.ErrorClass != OK || !rec.HasUsage || fmt.Sprint(rec.CompletionTokens) != big {
		t.Fatalf("got %q %q usage %v %d", rec.ErrorClass, rec.Error, rec.HasUsage, rec.CompletionTokens)
	}
	if !rec.UsageAbsurd() || rec.OutputTokens() != 2 {
		t.Errorf("absurd %v, output tokens %d, want true and the 2 chunks", rec.UsageAbsurd(), rec.OutputTokens())
	}
}

// TestUsageAbsurd checks the plausibility rule on hand-made records.
func TestUsageAbsurd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		usage, chunks int
		absurd        bool
	}{
		{100, 100, false},
		{MaxTokensPerChunk, 0, false}, // no chunk counts as one
		{MaxTokensPerChunk + 1, 0, true},
		{MaxTokensPerChunk * 3, 3, false},
		{MaxTokensPerChunk*3 + 1, 3, true},
		{MaxUsageTokens, MaxUsageTokens / MaxTokensPerChunk, false},
		{MaxUsageTokens + 1, MaxUsageTokens/MaxTokensPerChunk + 1, true},
	}
	for _, tt := range tests {
		r := Record{HasUsage: true, CompletionTokens: tt.usage, ChunkAt: make([]time.Duration, tt.chunks)}
		if got := r.UsageAbsurd(); got != tt.absurd {
			t.Errorf("usage %d over %d chunks: absurd %v, want %v", tt.usage, tt.chunks, got, tt.absurd)
		}
		want := tt.usage
		if tt.absurd {
			want = tt.chunks
		}
		if got := r.OutputTokens(); got != want {
			t.Errorf("usage %d over %d chunks: output tokens %d, want %d", tt.usage, tt.chunks, got, want)
		}
	}
}

// TestMaxEvents checks the bound's formula, also for a max_tokens near
// MaxInt, which must not overflow into a negative bound.
func TestMaxEvents(t *testing.T) {
	t.Parallel()
	for mt, want := range map[int]int{
		0: defaultMaxEvents, -1: defaultMaxEvents, 1: 66, 2048: 4160,
		hardMaxEvents: hardMaxEvents, math.MaxInt: hardMaxEvents,
	} {
		if got := maxEvents(mt); got != want {
			t.Errorf("maxEvents(%d) = %d, want %d", mt, got, want)
		}
	}
}
