package rate_test

import (
	"bytes"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/internal/progress"
	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/mode/closed"
	"github.com/toksweep/toksweep/mode/rate"
	"github.com/toksweep/toksweep/sweep"
)

// The progress lines name a level as its mode does: an uncapped rate
// level is "rate=16/s", not "C=0"; a closed loop's stays "C=4".
func TestProgressNamesTheLevelByItsMode(t *testing.T) {
	t.Parallel()
	p := progress.New(&bytes.Buffer{}, mode.Timing{Est: rate.Estimate{Rates: []float64{16}}, Repeat: 1, Tokens: 10}, nil)
	p.LevelStarted(sweep.Level{Mode: sweep.RateMode, Rate: 16}, 40)
	line := p.Status()
	if !strings.HasPrefix(line, "level rate=16/s (run 1 of 1): 0/40 requests") {
		t.Errorf("rate level's live line: %q", line)
	}
	var buf bytes.Buffer
	p = progress.New(&buf, mode.Timing{Est: closed.Estimate{4, 8}, Repeat: 1, Requests: 8, Tokens: 10}, nil)
	p.LevelStarted(sweep.Level{Mode: sweep.ClosedMode, Concurrency: 4}, 8)
	p.LevelEnded("level C=4 done", 0, true)
	if got := buf.String(); !strings.Contains(got, "a request at C=4)\n") {
		t.Errorf("closed level's re-estimate: %q", got)
	}
}

// A fixed rate list is re-estimated as its levels end: the level's time
// less its arrivals is a request's, and each level left lasts its
// arrivals plus that.
func TestRateRunIsReestimated(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		plan := mode.Timing{Est: rate.Estimate{Rates: []float64{1, 4}}, Repeat: 1, Requests: 40, Tokens: 10}
		p := progress.New(&buf, plan, nil)
		p.LevelStarted(sweep.Level{Mode: sweep.RateMode, Rate: 1}, 40)
		time.Sleep(42 * time.Second) // 40 arrivals at 1 req/s, then 2 s for the last request
		p.LevelEnded("level rate=1/s done", 0.98, true)
		// rate 4: 40 arrivals in 10 s, then 2 s: 12 s, said to 5 s. The
		// level is named by the rate its plan offered (sweep.RateText).
		want := "level rate=1/s done\ntoksweep: about 10 seconds left for 1 more level run (measured 2s a request at " + rate.Text(0.98, 1) + ")\n"
		if got := buf.String(); got != want {
			t.Errorf("re-estimate\n got %q\nwant %q", got, want)
		}
		if left := plan.TimeLeft(1, 2*time.Second); left != 12*time.Second {
			t.Errorf("time left after the first rate: %v, want 12s", left)
		}
	})
}

// A rate level that ends within its arrivals' time measured no time per
// request (elapsed less the arrivals' is not positive): the re-estimate
// says none rather than "measured 0s a request", and keeps the assumed
// one.
func TestRateLevelWithinItsArrivalsMeasuresNoRequestTime(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		plan := mode.Timing{Est: rate.Estimate{Rates: []float64{1, 4}}, Repeat: 1, Requests: 40, Tokens: 10}
		p := progress.New(&buf, plan, nil)
		assumed := p.PerRequest()
		p.LevelStarted(sweep.Level{Mode: sweep.RateMode, Rate: 1}, 40)
		time.Sleep(20 * time.Second)
		for range 20 {
			p.RequestDone(&client.Record{})
		}
		live := p.Status() // half done at 20 s: the level projects to its arrivals' 40 s
		if !strings.Contains(live, "sweep ~") {
			t.Errorf("the live line within the arrivals' time lost the sweep's time left: %q", live)
		}
		time.Sleep(19 * time.Second) // ended a second before its 40 arrivals' time
		p.LevelEnded("level rate=1/s done", 1.02, true)
		got := buf.String()
		if strings.Contains(got, "measured") {
			t.Errorf("a level that measured no request time says it did: %q", got)
		}
		if !strings.Contains(got, "left for 1 more level run\n") {
			t.Errorf("re-estimate: %q", got)
		}
		if p.PerRequest() != assumed {
			t.Errorf("request time %v, want the assumed %v kept", p.PerRequest(), assumed)
		}
	})
}
