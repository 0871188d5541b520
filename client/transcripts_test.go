package client

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestTranscripts replays the captures of real servers (llm-d and Ollama)
// with 20 ms between events and checks what the client makes of them.
func TestTranscripts(t *testing.T) {
	t.Parallel()
	p := pace{first: 20 * time.Millisecond, gap: 20 * time.Millisecond}
	tests := []struct {
		file       string
		api        API
		chunks     int // token-carrying chunks
		firstEvent int // index of the event with the first token
		hasUsage   bool
		prompt     int
		completion int
		finish     string
		class      ErrorClass
		errPart    string
	}{
		// The role-only first chunk and the empty finish chunk are no tokens.
		{"llmd-chat-stream-usage.sse", Chat, 6, 1, true, 6, 6, "length", OK, ""},
		{"llmd-chat-stream-nousage.sse", Chat, 6, 1, false, 0, 0, "length", OK, ""},
		{"llmd-completions-stream-usage.sse", Completions, 6, 0, true, 1, 6, "length", OK, ""},
		// A full queue: HTTP 200, then an error event with code 429.
		{"llmd-queue-full-error.sse", Chat, 0, 0, false, 0, 0, "", HTTP429,
			"error event in stream: Failed to enqueue request, waiting requests queue is full (code 429)"},
		// Ollama's last choice chunk has content "": not a token.
		{"ollama-chat-stream-usage.sse", Chat, 6, 0, true, 7, 6, "length", OK, ""},
		{"ollama-chat-stream-nousage.sse", Chat, 6, 0, false, 0, 0, "length", OK, ""},
		// Every chunk carries a zero usage; the real one comes last.
		{"ollama-completions-stream-usage.sse", Completions, 6, 0, true, 7, 6, "length", OK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			events := splitEvents(readFile(t, transcriptsDir, tt.file))
			srv := newServer(t, replay(events, p, nil))
			c := newClient(t, srv.URL, Config{API: tt.api, MaxTokens: 6})
			rec := c.Do(context.Background(), Prompt{ID: 3, Text: "hi"})

			if rec.ErrorClass != tt.class || !strings.Contains(rec.Error, tt.errPart) {
				t.Errorf("class %q error %q, want %q containing %q", rec.ErrorClass, rec.Error, tt.class, tt.errPart)
			}
			if rec.Status != 200 || rec.PromptID != 3 {
				t.Errorf("status %d prompt %d, want 200 and 3", rec.Status, rec.PromptID)
			}
			if len(rec.ChunkAt) != tt.chunks || rec.ReasoningChunks != 0 {
				t.Errorf("%d token chunks (%d reasoning), want %d", len(rec.ChunkAt), rec.ReasoningChunks, tt.chunks)
			}
			if rec.HasUsage != tt.hasUsage || rec.PromptTokens != tt.prompt || rec.CompletionTokens != tt.completion {
				t.Errorf("usage %v %d/%d, want %v %d/%d", rec.HasUsage, rec.PromptTokens, rec.CompletionTokens,
					tt.hasUsage, tt.prompt, tt.completion)
			}
			if rec.FinishReason != tt.finish {
				t.Errorf("finish_reason %q, want %q", rec.FinishReason, tt.finish)
			}
			if tt.class == OK && rec.OutputTokens() != 6 {
				t.Errorf("OutputTokens %d, want 6", rec.OutputTokens())
			}
			checkInstants(t, rec, p, len(events), tt.firstEvent)
		})
	}
}

// checkInstants checks a replayed record's instants: the first token no
// earlier than the event that carried it was sent, the end no earlier than
// the last event.
func checkInstants(t *testing.T, rec Record, p pace, events, firstEvent int) {
	t.Helper()
	lastEvent := p.first + time.Duration(events-1)*p.gap
	if rec.End-rec.Start < lastEvent || rec.Header < rec.Start {
		t.Errorf("start %v header %v end %v: the last event was sent %v after the request",
			rec.Start, rec.Header, rec.End, lastEvent)
	}
	if len(rec.ChunkAt) == 0 {
		return
	}
	wantFirst := p.first + time.Duration(firstEvent)*p.gap
	if ttft := rec.FirstToken - rec.Start; ttft < wantFirst || ttft != rec.ChunkAt[0] {
		t.Errorf("time to first token %v (ChunkAt[0] %v), want >= %v", ttft, rec.ChunkAt[0], wantFirst)
	}
	if rec.FirstContent != rec.FirstToken || rec.LastToken != rec.Start+rec.ChunkAt[len(rec.ChunkAt)-1] {
		t.Errorf("first content %v, first token %v, last token %v", rec.FirstContent, rec.FirstToken, rec.LastToken)
	}
}
