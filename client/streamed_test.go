package client

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// Config.Streamed counts token chunks while the stream is still open, and
// counts exactly the token-carrying chunks (not role-only ones, not usage).
func TestStreamedCountsTokenChunksLive(t *testing.T) {
	release := make(chan struct{})
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		send := func(data string) {
			fmt.Fprintf(w, "data: %s\n\n", data)
			w.(http.Flusher).Flush()
		}
		send(`{"choices":[{"delta":{"role":"assistant"}}]}`)
		send(`{"choices":[{"delta":{"reasoning_content":"hm"}}]}`)
		send(`{"choices":[{"delta":{"content":"a"}}]}`)
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		send(`{"choices":[{"delta":{"content":"b"}}]}`)
		send(`{"choices":[{"delta":{"content":"c"},"finish_reason":"stop"}]}`)
		send(`{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}`)
		send(`[DONE]`)
	})
	var streamed atomic.Int64
	c := newClient(t, srv.URL, Config{Streamed: &streamed})
	done := make(chan Record, 1)
	go func() { done <- c.Do(context.Background(), Prompt{Text: "x"}) }()
	for deadline := time.Now().Add(10 * time.Second); streamed.Load() < 2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			close(release)
			t.Fatalf("after two token chunks the counter reads %d", streamed.Load())
		}
	}
	if n := streamed.Load(); n != 2 {
		t.Errorf("mid-stream the counter reads %d, want 2", n)
	}
	close(release)
	rec := <-done
	if !rec.OK() {
		t.Fatalf("request failed: %+v", rec)
	}
	if n := streamed.Load(); n != int64(len(rec.ChunkAt)) || n != 4 {
		t.Errorf("counter %d, record has %d token chunks, want 4", n, len(rec.ChunkAt))
	}
}
