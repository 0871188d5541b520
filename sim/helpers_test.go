package sim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// testConfig is a small, quick, jitter-free server for protocol tests.
func testConfig() Config {
	return Config{
		Model:               "test-model",
		MaxModelLen:         256,
		MaxNumSeqs:          8,
		PrefillTokensPerSec: 1e6,
		DecodeBase:          time.Millisecond,
		StampSendTime:       true,
		Seed:                1,
	}
}

// startSim serves cfg on a free local port until the test ends and returns
// the server and its base URL (without /v1).
func startSim(t *testing.T, cfg Config) (*Server, string) {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	addr, err := s.Start(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s, "http://" + addr.String()
}

// post sends body (a string is sent verbatim, anything else as JSON).
func post(t *testing.T, ctx context.Context, url string, body any) *http.Response {
	t.Helper()
	resp, err := doPost(ctx, url, body)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// doPost is post for goroutines other than the test's.
func doPost(ctx context.Context, url string, body any) (*http.Response, error) {
	raw, ok := body.(string)
	if !ok {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		raw = string(b)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(raw))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	return http.DefaultClient.Do(req)
}

// sseEvent is one received "data:" event and when the client read it.
type sseEvent struct {
	data string
	at   time.Time
}

// obj decodes the event's JSON, failing the test if it is not an object.
func (e sseEvent) obj(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(e.data), &m); err != nil {
		t.Fatalf("event %q: %v", e.data, err)
	}
	return m
}

// readSSE reads events until the body ends; the error is what ended it
// (nil for a clean EOF).
func readSSE(body io.Reader) ([]sseEvent, error) {
	var evs []sseEvent
	r := bufio.NewReader(body)
	for {
		line, err := r.ReadString('\n')
		if data, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "data: "); ok {
			evs = append(evs, sseEvent{data: data, at: time.Now()})
		}
		if err == io.EOF {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
	}
}

// streamReq posts a streaming request and returns its events.
func streamReq(t *testing.T, url string, body map[string]any) []sseEvent {
	t.Helper()
	evs, err := fetchStream(url, body)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// fetchStream is streamReq for goroutines other than the test's.
func fetchStream(url string, body map[string]any) ([]sseEvent, error) {
	body["stream"] = true
	resp, err := doPost(context.Background(), url, body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return nil, fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	evs, err := readSSE(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("reading stream: %w", err)
	}
	return evs, nil
}

// chatBody is a one-message chat request.
func chatBody(content string, maxTokens int) map[string]any {
	return map[string]any{
		"messages":   []map[string]any{{"role": "user", "content": content}},
		"max_tokens": maxTokens,
	}
}

// path digs into decoded JSON: path(m, "choices", 0, "delta").
func path(v any, keys ...any) any {
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// decodeBody reads a JSON reply body into a map.
func decodeBody(t *testing.T, resp *http.Response) map[string]any {
	t.Helper()
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatalf("decoding body: %v", err)
	}
	return m
}

// jsonReader is v as a JSON request body.
func jsonReader(v any) io.Reader {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return bytes.NewReader(b)
}

// timingAttempts is how many times a timing test measures before it fails.
const timingAttempts = 3

// Starved machines. A step that ends more than loadedLate after its
// deadline means the machine did not run this process when it asked (a
// quiet one keeps steps within tens of µs, TestPacingAccuracy): rates
// measured over such an attempt say how busy the machine was, not what
// the model gives. Such an attempt does not count as a miss: the test fails
// after timingAttempts misses on time, and is skipped with the evidence
// when loadedAttempts starved ones leave too few, as client/timing_test.go
// relaxes its tight bounds when its server ran late.
const (
	loadedLate     = 2 * time.Millisecond
	loadedAttempts = 6
)

// starvation measures, over one attempt, how late the machine ran this
// process: start it before the attempt, call the returned stop after.
type starvation func() (stop func() (late time.Duration, what string))

// serverLate is how late s's engine ended its steps during the attempt.
func serverLate(s *Server) starvation {
	return func() func() (time.Duration, string) {
		n := stepsSoFar(s)
		return func() (time.Duration, string) { return worstLateSince(s, n), "the simulator's steps up to" }
	}
}

// eventuallyOn runs a timing check up to timingAttempts times and fails the
// test only if every attempt misses. The machine may be shared (parallel
// test packages, a fuzzer, a build), and a stalled client reads tokens late;
// a stall can push one measurement out of its bound, rarely into it.
// Attempts in which starved (when not nil) shows the machine late by more
// than loadedLate are run again, and the test is skipped if no attempt ran
// on time.
func eventuallyOn(t *testing.T, starved starvation, check func() error) {
	t.Helper()
	var err error
	quiet := 0
	for i := 0; i < loadedAttempts+timingAttempts && quiet < timingAttempts; i++ {
		var stop func() (time.Duration, string)
		if starved != nil {
			stop = starved()
		}
		err = check()
		var late time.Duration
		var what string
		if stop != nil {
			late, what = stop()
		}
		if err == nil {
			return
		}
		if late > loadedLate {
			t.Logf("attempt %d, machine starved (%s %v late): %v", i+1, what, late, err)
			continue
		}
		quiet++
		t.Logf("attempt %d: %v", i+1, err)
	}
	if quiet < timingAttempts {
		t.Skipf("the machine starved this test: %d of its misses were on a starved machine; last: %v", loadedAttempts+timingAttempts-quiet, err)
	}
	t.Errorf("%d attempts on a machine that kept time failed, last: %v", quiet, err)
}

// stepsSoFar is how many steps s's engine has timed; 0 without a server.
func stepsSoFar(s *Server) int {
	if s == nil {
		return 0
	}
	s.eng.lateMu.Lock()
	defer s.eng.lateMu.Unlock()
	return s.eng.lateN
}

// worstLateSince is the largest lateness of the steps s timed after the
// first n (of those still kept); 0 without a server.
func worstLateSince(s *Server, n int) time.Duration {
	if s == nil {
		return 0
	}
	late := s.eng.lateness()
	fresh := min(stepsSoFar(s)-n, len(late))
	var worst time.Duration
	for _, d := range late[len(late)-fresh:] {
		worst = max(worst, d)
	}
	return worst
}

// httptestServer serves s's Handler on a local httptest server, closed
// when the test ends, and returns its URL.
func httptestServer(tb testing.TB, s *Server) string {
	tb.Helper()
	srv := httptest.NewServer(s.Handler())
	tb.Cleanup(srv.Close)
	return srv.URL
}
