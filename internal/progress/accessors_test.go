package progress

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/mode/closed"
	"github.com/toksweep/toksweep/sweep"
)

// PerRequest is the assumed time (100 tokens at 40 tok/s: 2.5 s) until a
// level measures one (4 s for 4 requests at C=1: 1 s); Status is the live
// line of now, whether or not it is drawn; the timer probe changes neither.
func TestPerRequestAndStatus(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p := New(io.Discard, closedPlan([]int{1, 2}, 4, 100), nil)
		if got := p.PerRequest(); got != 2500*time.Millisecond {
			t.Errorf("assumed request time %v, want 2.5s", got)
		}
		p.LevelStarted(sweep.Level{Concurrency: 1}, 4)
		time.Sleep(2 * time.Second)
		p.RequestDone(&client.Record{})
		p.TimerLate(time.Second)
		if want := "level C=1 (run 1 of 2): 1/4 requests, 0 tokens streamed, 0 tok/s, 0 errors, 2s; level ~6s left, sweep ~10s left"; p.Status() != want {
			t.Errorf("Status\n got %q\nwant %q", p.Status(), want)
		}
		time.Sleep(2 * time.Second)
		p.LevelEnded("level C=1 done", 0, true)
		if got := p.PerRequest(); got != time.Second {
			t.Errorf("measured request time %v, want 1s", got)
		}
	})
}

// A level bounded by --duration alone is done by its share of the
// duration.
func TestLevelLeftOfADuration(t *testing.T) {
	t.Parallel()
	p := New(io.Discard, mode.Timing{Est: closed.Estimate{4}, Repeat: 1, Duration: 40 * time.Second}, nil)
	if left, ok := p.levelLeft(10*time.Second, 0); !ok || left != 30*time.Second {
		t.Errorf("10s into 40s: left %v (%v), want 30s", left, ok)
	}
}

type wrapped struct{ w io.Writer }

func (w wrapped) Write(p []byte) (int, error) { return w.w.Write(p) }
func (w wrapped) Unwrap() io.Writer           { return w.w }

// A file is judged as itself, and a writer that wraps one by it: neither a
// regular file nor a buffer is a terminal.
func TestIsTerminalUnwraps(t *testing.T) {
	t.Parallel()
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, w := range []io.Writer{f, wrapped{f}, wrapped{&strings.Builder{}}, io.Discard} {
		if IsTerminal(w) {
			t.Errorf("%T is taken for a terminal", w)
		}
	}
}
