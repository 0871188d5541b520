package progress

import (
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/mode/closed"
	"github.com/toksweep/toksweep/sweep"
)

// Timer tests of the progress line and its estimates, in fake time
// (testing/synctest): the clock moves only when every goroutine of the
// bubble waits, so each redraw happens at exactly its instant and each
// figure derived from the elapsed time is exact.

// closedPlan is the estimates' view of a closed-loop sweep of levels, with
// requests measured requests per level of tokens output tokens each (as
// the sweep command builds it from --levels, --requests and --max-tokens).
func closedPlan(levels []int, requests, tokens int) mode.Timing {
	return mode.Timing{Est: closed.Estimate(levels), Repeat: 1, Requests: requests, Tokens: float64(tokens)}
}

// redraws splits live output into the lines drawn after "\r\033[K".
func redraws(out string) []string {
	parts := strings.Split(out, "\r\033[K")
	return parts[1:]
}

// TestProgressRedrawsEveryInterval: on a terminal the live line is drawn
// every Every (250 ms), 80 times in 20 s, each from the elapsed
// time at its instant; the estimate at the level's end is measured from
// the level's own time; a failed request counts as done and as an error,
// a warm-up as neither; the last run has no sweep estimate; stop draws
// nothing more. (TestProgressLiveRedrawsOnTerminal checks the same line
// on a real clock.)
func TestProgressRedrawsEveryInterval(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var buf syncBuffer
		var streamed atomic.Int64
		// Two levels of 320 requests of 100 tokens; nothing known of the
		// server, so a request's time at C=8 is its time at C=4.
		p := New(&buf, closedPlan([]int{4, 8}, 320, 100), &streamed)
		p.live = true
		p.LevelStarted(sweep.Level{Concurrency: 4}, 320)
		for range 80 {
			p.RequestDone(&client.Record{CompletionTokens: 100, HasUsage: true})
		}
		streamed.Store(8000) // a quarter of 320 × 100

		time.Sleep(20*time.Second + time.Millisecond)
		lines := redraws(buf.String())
		if len(lines) != 80 {
			t.Fatalf("%d redraws in 20s, want 80 (one every %v)", len(lines), Every)
		}
		// At 250 ms: a quarter done, so 750 ms left (to the second: 1s);
		// a request took 1s/80 = 12.5 ms, the C=8 level's 40 rounds 0.5 s.
		if want := "level C=4 (run 1 of 2): 80/320 requests, 8000 tokens streamed, 32000 tok/s, 0 errors, 0s; level ~1s left, sweep ~1s left"; lines[0] != want {
			t.Errorf("first redraw\n%q, want\n%q", lines[0], want)
		}
		// At 20 s: 60 s left in the level; a request took 80s/80 = 1 s,
		// the C=8 level 40 s more.
		if want := "level C=4 (run 1 of 2): 80/320 requests, 8000 tokens streamed, 400 tok/s, 0 errors, 20s; level ~1m0s left, sweep ~1m40s left"; lines[79] != want {
			t.Errorf("redraw at 20s\n%q, want\n%q", lines[79], want)
		}

		// The level ends at 80.1 s, between two redraws: 1.00125 s a
		// request measured (1s), so the C=8 level's 40 rounds take 40 s.
		time.Sleep(60*time.Second + 99*time.Millisecond)
		n := len(redraws(buf.String()))
		p.LevelEnded("level C=4 done", 0, true)
		got := redraws(buf.String())[n:]
		if len(got) != 2 || got[0] != "level C=4 done\n" || got[1] != "toksweep: about 40 seconds left for 1 more level run (measured 1s a request at C=4)\n" {
			t.Errorf("at the level's end drew %q", got)
		}

		// The ticker keeps its phase: the next redraw is at 80.25 s, 150 ms
		// into the level.
		p.LevelStarted(sweep.Level{Concurrency: 8}, 320)
		p.RequestDone(&client.Record{ErrorClass: client.HTTP5xx})
		p.RequestDone(&client.Record{Warmup: true}) // not counted: planned is measured requests
		streamed.Store(16000)                       // half of the level's tokens
		time.Sleep(150*time.Millisecond + time.Millisecond)
		last := redraws(buf.String())
		if want := "level C=8 (run 2 of 2): 1/320 requests, 16000 tokens streamed, 106667 tok/s, 1 errors, 0s; level ~0s left"; last[len(last)-1] != want {
			t.Errorf("last run's redraw\n%q, want\n%q (no sweep estimate)", last[len(last)-1], want)
		}
		p.Stop()
		n = len(redraws(buf.String()))
		time.Sleep(time.Second)
		if m := len(redraws(buf.String())); m != n {
			t.Errorf("%d redraws after stop", m-n)
		}
	})
}

// TestProgressPlainReestimateIsMeasured: off a terminal, the re-estimate
// after a level is the level's measured time per request (3 s for 8
// requests at C=1: 375 ms, shown as 400ms) times the rounds left (C=2:
// 4 rounds, C=4: 2), and nothing is drawn between the lines.
func TestProgressPlainReestimateIsMeasured(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var buf syncBuffer
		p := New(&buf, closedPlan([]int{1, 2, 4}, 8, 100), nil)
		p.LevelStarted(sweep.Level{Concurrency: 1}, 8)
		time.Sleep(3 * time.Second)
		p.LevelEnded("level C=1 done", 0, true)
		p.LevelStarted(sweep.Level{Concurrency: 2}, 8)
		time.Sleep(80 * time.Second) // 20 s a request: 2 rounds of C=4 left, 40 s
		p.LevelEnded("level C=2 done", 0, true)
		p.Stop()
		want := "level C=1 done\n" +
			"toksweep: a few seconds left for 2 more level runs (measured 400ms a request at C=1)\n" +
			"level C=2 done\n" +
			"toksweep: about 40 seconds left for 1 more level run (measured 20s a request at C=2)\n"
		if got := buf.String(); got != want {
			t.Errorf("plain progress wrote\n%q, want\n%q", got, want)
		}
	})
}
