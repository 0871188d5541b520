package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// replyStream serves a chat stream: a reasoning chunk, then parts as
// content chunks.
func replyStream(parts []string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{"reasoning_content":"thinking"}}]}`+"\n\n")
		for _, p := range parts {
			b, _ := json.Marshal(p)
			fmt.Fprintf(w, `data: {"choices":[{"index":0,"delta":{"content":%s}}]}`+"\n\n", b)
		}
		fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}
}

func TestKeepReply(t *testing.T) {
	parts := []string{"Hé", "llo \"w\"", "\norld ✓"}
	srv := newServer(t, replyStream(parts))
	c := newClient(t, srv.URL, Config{})
	rec := c.Do(context.Background(), Prompt{Text: "x", KeepReply: true})
	if !rec.OK() || rec.Reply != strings.Join(parts, "") {
		t.Errorf("reply %q (%s), want the content %q without the reasoning", rec.Reply, rec.ErrorClass, strings.Join(parts, ""))
	}
	if rec := c.Do(context.Background(), Prompt{Text: "x"}); rec.Reply != "" {
		t.Errorf("reply kept without KeepReply: %q", rec.Reply)
	}
}

// TestKeepReplyBound: a reply longer than MaxReplyBytes is cut there, at a
// UTF-8 boundary, and the request still succeeds.
func TestKeepReplyBound(t *testing.T) {
	part := strings.Repeat("é", 1000) // 2000 bytes
	parts := make([]string, MaxReplyBytes/2000+2)
	for i := range parts {
		parts[i] = part
	}
	srv := newServer(t, replyStream(parts))
	c := newClient(t, srv.URL, Config{MaxTokens: 100_000})
	rec := c.Do(context.Background(), Prompt{Text: "x", KeepReply: true})
	full := strings.Join(parts, "")
	if !rec.OK() || len(rec.Reply) != MaxReplyBytes || rec.Reply != full[:MaxReplyBytes] {
		t.Errorf("reply of %d bytes (%s), want the first %d of %d", len(rec.Reply), rec.ErrorClass, MaxReplyBytes, len(full))
	}
}
