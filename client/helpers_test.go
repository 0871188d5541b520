package client

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toksweep/toksweep/internal/testkit/rawserver"
)

// Fixture directories, relative to the package.
const (
	transcriptsDir = "../testdata/transcripts"
	sseDir         = "../testdata/sse"
)

func readFile(t testing.TB, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// splitEvents splits an SSE file into its events, each with its blank line.
func splitEvents(b []byte) [][]byte {
	var events [][]byte
	for _, e := range bytes.SplitAfter(b, []byte("\n\n")) {
		if len(bytes.TrimSpace(e)) > 0 {
			events = append(events, e)
		}
	}
	return events
}

// pace is when a replay server sends: first after the headers, then gap
// between events. Each event goes out at an absolute instant, start + first
// + i*gap, so that sleep overshoots do not add up.
type pace struct{ first, gap time.Duration }

// server is an httptest server that remembers the last request it got.
type server struct {
	*httptest.Server
	mu     sync.Mutex
	body   []byte
	header http.Header
	path   string
	conns  int // connections accepted
}

func (s *server) last() ([]byte, http.Header) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.body, s.header
}

func (s *server) lastPath() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.path
}

// newServer starts a server whose handler runs after the request body has
// been captured.
func newServer(t testing.TB, h http.HandlerFunc) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.body, s.header, s.path = body, r.Header.Clone(), r.URL.Path
		s.mu.Unlock()
		h(w, r)
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.mu.Lock()
			s.conns++
			s.mu.Unlock()
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// sendLog records, on the client's clock, when a replay server wrote each
// event: the ground truth the measurements are checked against.
type sendLog struct {
	mu    sync.Mutex
	clock func() time.Duration
	at    []time.Duration
}

func (l *sendLog) setClock(clock func() time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clock = clock
}

func (l *sendLog) stamp() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.clock != nil {
		l.at = append(l.at, l.clock())
	}
}

func (l *sendLog) sent() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.at)
}

// replay serves events as an SSE stream at the given pace, flushing each,
// and logs when it writes them when log is not nil.
func replay(events [][]byte, p pace, log *sendLog) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for i, e := range events {
			if !sleepUntil(r, start.Add(p.first+time.Duration(i)*p.gap)) {
				return
			}
			if log != nil {
				log.stamp()
			}
			_, _ = w.Write(e)
			w.(http.Flusher).Flush()
		}
	}
}

// sleepUntil waits for t or for the request to go away.
func sleepUntil(r *http.Request, t time.Time) bool {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// respond serves a fixed status and body.
func respond(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

// httpTranscript splits a captured error response ("body\nHTTP 404") into
// its status and body.
func httpTranscript(t testing.TB, name string) (int, string) {
	t.Helper()
	b := strings.TrimSpace(string(readFile(t, transcriptsDir, name)))
	i := strings.LastIndex(b, "\nHTTP ")
	if i < 0 {
		t.Fatalf("%s: no status line", name)
	}
	status, err := strconv.Atoi(strings.TrimSpace(b[i+len("\nHTTP "):]))
	if err != nil {
		t.Fatal(err)
	}
	return status, strings.TrimSpace(b[:i])
}

// newClient builds a client for srv (with "/v1" appended) from cfg.
func newClient(t testing.TB, url string, cfg Config) *Client {
	t.Helper()
	cfg.BaseURL = url + "/v1"
	if cfg.Model == "" {
		cfg.Model = "demo-model"
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// closedPort returns an address on 127.0.0.1 where nothing listens, held
// refusing for the test's life (rawserver.Closed: a port picked and closed
// could be taken by a parallel test's server before the client dials it).
func closedPort(t testing.TB) string {
	t.Helper()
	return rawserver.Closed(t)
}
