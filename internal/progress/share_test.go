package progress

import (
	"io"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/mode/closed"
	"github.com/toksweep/toksweep/sweep"
)

// TestShareDone: the run-done gauge is (level runs finished + the running
// one's share) / runs planned, the running one's share that of its
// requests done; NaN when the runs are not planned ahead.
func TestShareDone(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p := New(io.Discard, mode.Timing{Est: closed.Estimate([]int{1, 2}), Repeat: 1, Requests: 4}, nil)
		if got := p.ShareDone(2); got != 0 {
			t.Errorf("before any level: %v, want 0", got)
		}
		p.LevelStarted(sweep.Level{Concurrency: 1}, 4)
		time.Sleep(time.Second)
		p.RequestDone(&client.Record{})
		p.RequestDone(&client.Record{ErrorClass: client.Timeout})
		if got := p.ShareDone(2); math.Abs(got-0.25) > 1e-9 {
			t.Errorf("half of the first of two levels: %v, want 0.25", got)
		}
		p.LevelStarted(sweep.Level{Concurrency: 2}, 4)
		time.Sleep(time.Second)
		for range 4 {
			p.RequestDone(&client.Record{})
		}
		if got := p.ShareDone(2); got != 1 {
			t.Errorf("all of both levels: %v, want 1", got)
		}
		if got := p.ShareDone(0); !math.IsNaN(got) {
			t.Errorf("no planned runs: %v, want NaN", got)
		}
	})
}
