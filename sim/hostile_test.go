package sim

import (
	"context"
	"io"
	"math"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestMaxTokensOverflow checks that a max_tokens near MaxInt64, which
// overflowed prompt+max_tokens, is refused with vLLM's context error.
func TestMaxTokensOverflow(t *testing.T) {
	_, url := startSim(t, testConfig()) // MaxModelLen 256
	const huge = math.MaxInt64
	for _, body := range []any{
		chatBody("one two three", huge),
		`{"messages":[{"role":"user","content":"x"}],"max_completion_tokens":9223372036854775807,"stream":true}`,
		map[string]any{"prompt": "a b c", "max_tokens": huge - 2, "stream": true},
	} {
		u := url + "/v1/chat/completions"
		if m, ok := body.(map[string]any); ok && m["prompt"] != nil {
			u = url + "/v1/completions"
		}
		checkError(t, post(t, context.Background(), u, body), http.StatusBadRequest, "BadRequestError",
			"This model's maximum context length is 256 tokens. However, you requested 92233720368547758")
	}
}

// startSimTimeouts is startSim with the HTTP server's timeouts set.
func startSimTimeouts(t *testing.T, cfg Config, to timeouts) string {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.timeouts = to
	addr, err := s.Start(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return addr.String()
}

// TestTrickledBody checks that a client sending its body a byte at a time
// cannot hold a connection beyond the read timeout, nor one that sends
// nothing after its headers, nor an idle one.
func TestTrickledBody(t *testing.T) {
	t.Parallel() // each case waits out a 300 ms timeout: they wait at once
	const timeout = 300 * time.Millisecond
	addr := startSimTimeouts(t, testConfig(), timeouts{header: timeout, read: timeout, idle: timeout})
	const head = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
	for _, tt := range []struct {
		name    string
		send    string
		trickle bool
	}{
		{"trickled body", head, true},
		{"body never sent", head, false},
		{"idle connection", "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			begin := time.Now()
			if _, err := io.WriteString(conn, tt.send); err != nil {
				t.Fatal(err)
			}
			closed := make(chan struct{})
			go func() { // the server's answer, if any, then its close
				defer close(closed)
				_, _ = io.Copy(io.Discard, conn)
			}()
			stop := time.After(10 * time.Second)
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-closed:
					if took := time.Since(begin); took < timeout/2 {
						t.Errorf("closed after %v, well before the %v timeout", took, timeout)
					}
					return
				case <-stop:
					t.Fatalf("the server still holds the connection after 10s (timeout %v)", timeout)
				case <-tick.C:
					if tt.trickle {
						_, _ = io.WriteString(conn, " ")
					}
				}
			}
		})
	}
}

// TestStreamOutlastsReadTimeout checks that the read timeout bounds only
// reading the request: a stream longer than it still completes.
func TestStreamOutlastsReadTimeout(t *testing.T) {
	t.Parallel() // a 0.5 s stream, checked from below only
	const timeout = 100 * time.Millisecond
	cfg := testConfig()
	cfg.DecodeBase = 5 * time.Millisecond // 100 tokens: 500 ms at least
	addr := startSimTimeouts(t, cfg, timeouts{header: timeout, read: timeout, idle: timeout})
	begin := time.Now()
	evs := streamReq(t, "http://"+addr+"/v1/chat/completions", chatBody("hi", 100))
	if took := time.Since(begin); took < 3*timeout || len(evs) == 0 || evs[len(evs)-1].data != "[DONE]" {
		t.Errorf("stream of %v: %d events, the last %q; want a stream longer than %v ending with [DONE]",
			took, len(evs), strings.Join(lastData(evs), ""), 3*timeout)
	}
}

func lastData(evs []sseEvent) []string {
	if len(evs) == 0 {
		return nil
	}
	return []string{evs[len(evs)-1].data}
}
