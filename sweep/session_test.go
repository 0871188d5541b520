package sweep_test

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

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode/closed"
	"github.com/toksweep/toksweep/mode/sessions"
	"github.com/toksweep/toksweep/sweep"
	"github.com/toksweep/toksweep/workload"
)

// turnServer is an httptest chat server that keeps every request's
// messages and the reply it streamed, with the server's own times: when
// the request arrived and when its reply was complete. A user message
// holding "FAIL" gets a 500.
type turnServer struct {
	mu    sync.Mutex
	n     int
	seen  []turnSeen
	reply map[string][]turnSeen // by the JSON of the request's messages (a conversation may open twice)
}

type turnSeen struct {
	msgs       []client.Message
	prompt     string // completions
	reply      string
	got, ended time.Time
}

func (s *turnServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	got := time.Now()
	var body struct {
		Messages []client.Message `json:"messages"`
		Prompt   string           `json:"prompt"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	last := body.Prompt
	if n := len(body.Messages); n > 0 {
		last = body.Messages[n-1].Content
	}
	if strings.Contains(last, "FAIL") {
		http.Error(w, "no", http.StatusInternalServerError)
		return
	}
	s.mu.Lock()
	s.n++
	// A reply in several chunks, with characters JSON escapes, so that the
	// test sees the text reassembled and decoded.
	parts := []string{fmt.Sprintf("Reply #%d", s.n), " to \"", strings.ToUpper(last[:min(len(last), 5)]), "\" — ok\n"}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	f := w.(http.Flusher)
	for _, p := range parts {
		b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]string{"content": p}, "text": ""}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
		f.Flush()
	}
	fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n")
	seen := turnSeen{msgs: body.Messages, prompt: body.Prompt, reply: strings.Join(parts, ""), got: got, ended: time.Now()}
	s.mu.Lock()
	s.seen = append(s.seen, seen)
	key, _ := json.Marshal(body.Messages)
	if body.Messages == nil {
		key = []byte(body.Prompt)
	}
	s.reply[string(key)] = append(s.reply[string(key)], seen)
	s.mu.Unlock()
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// sessionRun sweeps one level of c workers over the conversations of a
// JSONL file against a turnServer.
func sessionRun(t *testing.T, api client.API, c, requests int, think time.Duration, lines ...string) (*turnServer, sweep.Level) {
	t.Helper()
	ts := &turnServer{reply: map[string][]turnSeen{}}
	srv := httptest.NewServer(ts)
	t.Cleanup(srv.Close)
	name := filepath.Join(t.TempDir(), "conv.jsonl")
	if err := os.WriteFile(name, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	set, err := workload.Load(workload.Options{Dataset: name, MultiTurn: true})
	if err != nil {
		t.Fatal(err)
	}
	set.Sessions.Completions = api == client.Completions
	cl, err := client.New(client.Config{BaseURL: srv.URL + "/v1", Model: "m", API: api, MaxTokens: 16, RequestTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	cfg := sweep.Config{Requests: requests, Load: sessions.Load{
		Load: closed.Load{Name: sessions.Name, Levels: []int{c}},
		Sessions: &sweep.Sessions{
			Open: sessions.Opener(set.Sessions), Think: sweep.Think{Mean: think},
		},
	}}
	var lvl sweep.Level
	err = sweep.Run(context.Background(), cfg, cl, func(l sweep.Level) error { lvl = l; return nil })
	if err != nil {
		t.Fatal(err)
	}
	return ts, lvl
}

// TestSessionsResendTheStreamedReplies: every later turn's messages are an
// earlier request's messages, the exact reply streamed to it, and the next
// user message of the same conversation; the server saw the think time
// between a reply's end and the next turn.
func TestSessionsResendTheStreamedReplies(t *testing.T) {
	const think = 150 * time.Millisecond
	ts, lvl := sessionRun(t, client.Chat, 2, 8, think,
		`{"turns": ["alpha one", "alpha two", "alpha three", "alpha four"]}`,
		`{"turns": ["beta one", "beta two", "beta three", "beta four"]}`)
	later := 0
	for _, s := range ts.seen {
		n := len(s.msgs)
		if n%2 != 1 || s.msgs[n-1].Role != "user" {
			t.Fatalf("messages %+v: want user, assistant, …, user", s.msgs)
		}
		if n == 1 {
			continue
		}
		later++
		key, _ := json.Marshal(s.msgs[:n-2])
		// The earlier request whose reply this turn resends (a conversation
		// opened twice has several with the same messages).
		var prev turnSeen
		ok := false
		for _, p := range ts.reply[string(key)] {
			if p.reply == s.msgs[n-2].Content && !p.ended.After(s.got) {
				prev, ok = p, true
			}
		}
		switch {
		case !ok:
			t.Errorf("turn %d's history %s is no earlier request's messages", n/2+1, key)
		case s.msgs[n-2] != client.Message{Role: "assistant", Content: prev.reply}:
			t.Errorf("turn %d resends %+v, want the streamed reply %q", n/2+1, s.msgs[n-2], prev.reply)
		case !strings.HasPrefix(s.msgs[n-1].Content, strings.Fields(s.msgs[0].Content)[0]):
			t.Errorf("turn %d sends %q after %q: another conversation's message", n/2+1, s.msgs[n-1].Content, s.msgs[0].Content)
		case s.got.Sub(prev.ended) < think:
			t.Errorf("turn %d arrived %v after the previous reply ended, want ≥ the think time %v", n/2+1, s.got.Sub(prev.ended), think)
		case s.got.Sub(prev.ended) > think+10*time.Second:
			t.Errorf("turn %d arrived %v after the previous reply ended", n/2+1, s.got.Sub(prev.ended))
		}
	}
	if later == 0 {
		t.Fatal("no later turn was sent")
	}
	for _, r := range lvl.Records {
		if r.Session == 0 || r.Turn < 1 || r.Reply != "" {
			t.Errorf("record session %d turn %d reply %q: want a session, a turn, and the reply dropped", r.Session, r.Turn, r.Reply)
		}
	}
	if len(lvl.Records) != 8 {
		t.Errorf("%d records, want 8: --requests counts turns", len(lvl.Records))
	}
}

// TestSessionFailedTurnEndsSession: a failed turn's session sends no
// further turn; the worker opens the next session.
func TestSessionFailedTurnEndsSession(t *testing.T) {
	ts, lvl := sessionRun(t, client.Chat, 1, 6, 0,
		`{"turns": ["gamma one", "FAIL gamma two", "gamma three"]}`)
	for _, s := range ts.seen {
		for _, m := range s.msgs {
			if m.Content == "gamma three" {
				t.Fatalf("the turn after a failed one was sent: %+v", s.msgs)
			}
		}
	}
	// One worker, conversations of which turn 2 fails: every session is
	// turn 1 (ok), turn 2 (http_5xx), and the next ticket opens a new one.
	for i, r := range lvl.Records {
		wantTurn, wantOK := i%2+1, i%2 == 0
		if r.Turn != wantTurn || r.OK() != wantOK || r.Session != i-i%2+1 {
			t.Errorf("record %d: session %d turn %d ok %v (%s); want session %d turn %d ok %v", i, r.Session, r.Turn, r.OK(), r.ErrorClass, i-i%2+1, wantTurn, wantOK)
		}
	}
}

// TestSessionsCompletionsFlatten: over the completions API a later turn's
// prompt is the flattened history, with the exact streamed reply.
func TestSessionsCompletionsFlatten(t *testing.T) {
	ts, _ := sessionRun(t, client.Completions, 1, 2, 0, `{"turns": ["delta one", "delta two"]}`)
	if len(ts.seen) != 2 {
		t.Fatalf("%d requests, want 2", len(ts.seen))
	}
	want := "User: delta one\nAssistant: " + ts.seen[0].reply + "\nUser: delta two\nAssistant:"
	if ts.seen[0].prompt != "User: delta one\nAssistant:" || ts.seen[1].prompt != want {
		t.Errorf("prompts %q, %q; want %q second", ts.seen[0].prompt, ts.seen[1].prompt, want)
	}
}
