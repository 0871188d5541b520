package app

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
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
	var buf syncBuffer
	p := newProgress(&buf)
	if p.live {
		t.Fatal("a buffer is not a terminal")
	}
	p.start(4, 0, 16)
	p.observe(client.Record{CompletionTokens: 10, HasUsage: true})
	p.levelDone("level C=4 done")
	p.stop()
	if got := buf.String(); got != "level C=4 done\n" {
		t.Errorf("plain progress wrote %q", got)
	}
}

func TestProgressLiveRedrawsOnTerminal(t *testing.T) {
	var buf syncBuffer
	p := &progress{w: &buf, live: true}
	p.start(8, 0, 32)
	for range 3 {
		p.observe(client.Record{CompletionTokens: 100, HasUsage: true})
	}
	p.observe(client.Record{ErrorClass: client.HTTP5xx})
	p.observe(client.Record{Warmup: true}) // not counted: planned is measured requests
	// Wait for a redraw (polling, so a loaded machine only makes it slower).
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(buf.String(), "requests") && time.Now().Before(deadline); {
		time.Sleep(progressEvery / 5)
	}
	p.levelDone("level C=8 done")
	p.stop()
	out := buf.String()
	for _, want := range []string{"\r\033[Klevel C=8: 4/32 requests", "1 errors", "\r\033[Klevel C=8 done\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("live output lacks %q:\n%q", want, out)
		}
	}
}
