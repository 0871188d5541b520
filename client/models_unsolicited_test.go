package client

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// A model list followed, on the same connection and in the same write, by
// a response nobody asked for: the connection must not carry the next
// request, or that request may read the unsolicited response as its own.
// A quiet whole-suite run failed app's hostile-server test that way, we
// believe ("pre-flight check failed … incomplete stream … connection reset
// by peer": the unsolicited response has no length, and the server closes
// the connection under the request it did not read). The race is narrow
// (net/http's read loop sees the extra bytes and drops the connection
// unless a request takes it first): 2000 rounds here did not reproduce it,
// so the test checks the cure directly: every list request asks the server
// to close the connection (Connection: close), and the request after it
// gets its own answer.
func TestModelListConnectionIsNotReused(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var listClose []bool
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		listClose = append(listClose, r.Close)
		mu.Unlock()
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		body := `{"data":[{"id":"demo-model","object":"model"}]}`
		fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: unsolicited\n\n")
		_ = buf.Flush()
		_, _ = conn.Read(make([]byte, 1)) // until the client closes it, or sends the next request here
	})
	stream := splitEvents(readFile(t, sseDir, "multi-token.sse"))
	mux.HandleFunc("POST /v1/chat/completions", replay(stream, pace{}, nil))
	srv := newServer(t, mux.ServeHTTP)
	c := newClient(t, srv.URL, Config{})
	for i := range 20 {
		if _, err := c.ListModels(context.Background()); err != nil {
			t.Fatal(err)
		}
		rec, err := c.Check(context.Background(), Prompt{Text: "hi", MaxTokens: 8})
		if err != nil || len(rec.ChunkAt) != 5 {
			t.Fatalf("round %d: the request after the model list read %d chunks, err %v", i, len(rec.ChunkAt), err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(listClose) != 20 || strings.Contains(fmt.Sprint(listClose), "false") {
		t.Errorf("model list requests' Connection: close: %v, want every one true", listClose)
	}
}
