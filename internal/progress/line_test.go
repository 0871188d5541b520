package progress

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/mode/closed"
	"github.com/toksweep/toksweep/sweep"
)

// syncBuffer is a bytes.Buffer safe for the redraw goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestProgressPlainWritesOneLinePerLevel(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	p := New(&buf, mode.Timing{}, nil)
	if p.live {
		t.Fatal("a buffer is not a terminal")
	}
	p.LevelStarted(sweep.Level{Concurrency: 4}, 16)
	p.RequestDone(&client.Record{CompletionTokens: 10, HasUsage: true})
	p.Say("level C=4 done")
	p.Stop()
	if got := buf.String(); got != "level C=4 done\n" {
		t.Errorf("plain progress wrote %q", got)
	}
}

func TestProgressLiveRedrawsOnTerminal(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	var streamed atomic.Int64
	plan := mode.Timing{Est: closed.Estimate([]int{4, 8}), Repeat: 1, Requests: 32, Tokens: 100}
	p := New(&buf, plan, &streamed)
	p.live = true
	p.LevelStarted(sweep.Level{Concurrency: 4}, 32)
	p.LevelEnded("level C=4 done", 0, true)
	p.LevelStarted(sweep.Level{Concurrency: 8}, 32)
	for range 3 {
		p.RequestDone(&client.Record{CompletionTokens: 100, HasUsage: true})
	}
	p.RequestDone(&client.Record{ErrorClass: client.HTTP5xx})
	p.RequestDone(&client.Record{Warmup: true}) // not counted: planned is measured requests
	// Tokens count as they stream, before any request ends: 1600 of the
	// level's 3200 expected tokens is half the level.
	streamed.Store(1600)
	// Wait for a redraw (polling, so a loaded machine only makes it slower).
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(buf.String(), "1600 tokens") && time.Now().Before(deadline); {
		time.Sleep(Every / 5)
	}
	p.Say("level C=8 done")
	p.Stop()
	out := buf.String()
	for _, want := range []string{"\r\033[Klevel C=8 (run 2 of 2): 4/32 requests, 1600 tokens streamed", "1 errors", "; level ~", " left", "\r\033[Klevel C=8 done\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("live output lacks %q:\n%q", want, out)
		}
	}
	if strings.Contains(out, "sweep ~") {
		t.Errorf("the last run has no sweep estimate beyond its own:\n%q", out)
	}
}

// levelLeft extrapolates the level's elapsed time by how far it got: the
// larger of the requests' and the streamed tokens' share.
func TestProgressLevelLeft(t *testing.T) {
	t.Parallel()
	p := New(io.Discard, mode.Timing{Est: closed.Estimate([]int{4}), Repeat: 1, Tokens: 100, Warmup: 4}, nil)
	p.planned = 16
	cases := []struct {
		done, tokens int64
		want         time.Duration
	}{
		{0, 0, -1},                  // nothing yet: no estimate
		{4, 0, 30 * time.Second},    // a quarter of the requests in 10s
		{0, 1000, 10 * time.Second}, // half of 20×100 tokens
		{8, 500, 10 * time.Second},  // requests ahead of tokens
		{16, 2000, 0},               // done
		{16, 9000, 0},               // more tokens than expected: not negative
	}
	for _, tc := range cases {
		p.done.Store(tc.done)
		left, ok := p.levelLeft(10*time.Second, tc.tokens)
		if !ok {
			left = -1
		}
		if left != tc.want {
			t.Errorf("done %d tokens %d: left %v, want %v", tc.done, tc.tokens, left, tc.want)
		}
	}
}

// Off a terminal the re-estimate is a plain line after the level's, and an
// interrupted level gets none.
func TestProgressPlainReestimate(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	p := New(&buf, mode.Timing{Est: closed.Estimate([]int{1, 2, 4}), Repeat: 1, Requests: 8, Tokens: 100}, nil)
	p.LevelStarted(sweep.Level{Concurrency: 1}, 8)
	p.LevelEnded("level C=1 done", 0, true)
	p.LevelStarted(sweep.Level{Concurrency: 2}, 8)
	p.LevelEnded("level C=2 done", 0, false)
	p.Stop()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 3 || lines[0] != "level C=1 done" || lines[2] != "level C=2 done" ||
		!strings.HasPrefix(lines[1], "toksweep: a few seconds left for 2 more level runs (measured ") || strings.Contains(buf.String(), "\r") {
		t.Errorf("plain progress wrote %q", buf.String())
	}
}
