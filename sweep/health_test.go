package sweep_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode/closed"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// pacedDoer answers every request after `took`, with one token chunk per
// `gap`, and uses no CPU while it waits: a server that is never the
// bottleneck.
type pacedDoer struct {
	epoch     time.Time
	took, gap time.Duration
}

func (d *pacedDoer) Now() time.Duration { return time.Since(d.epoch) }

func (d *pacedDoer) Do(ctx context.Context, p client.Prompt) client.Record {
	r := client.Record{PromptID: p.ID, Start: d.Now(), Status: 200, FinishReason: "length"}
	select {
	case <-time.After(d.took):
	case <-ctx.Done():
		r.ErrorClass = client.Canceled
	}
	r.End = d.Now()
	for at := d.gap; at <= r.End-r.Start; at += d.gap {
		r.ChunkAt = append(r.ChunkAt, at)
	}
	if n := len(r.ChunkAt); n > 0 {
		r.FirstToken, r.FirstContent, r.LastToken = r.Start+r.ChunkAt[0], r.Start+r.ChunkAt[0], r.Start+r.ChunkAt[n-1]
	}
	return r
}

// doneObserver is an Observer whose RequestDone is f.
type doneObserver struct {
	sweep.NopObserver
	f func()
}

func (o doneObserver) RequestDone(*client.Record) { o.f() }

// runObserved runs one level of c workers, each finished request told to
// observe (an Observer's RequestDone), and summarizes it.
func runObserved(t *testing.T, c int, observe func()) (report.LevelStats, sweep.Health) {
	t.Helper()
	d := &pacedDoer{epoch: time.Now(), took: 30 * time.Millisecond, gap: 5 * time.Millisecond}
	cfg := sweep.Config{
		Load: closed.Load{Levels: []int{c}}, Requests: 8 * c,
		Prompt: sweep.Cycle([]client.Prompt{{Text: "p"}}), Observer: doneObserver{f: observe},
	}
	var lvl sweep.Level
	if err := sweep.Run(context.Background(), cfg, d, func(l sweep.Level) error { lvl = l; return nil }); err != nil {
		t.Fatal(err)
	}
	s, h := report.Summarize(lvl, report.Settings{}), lvl.Health
	t.Logf("issue lag max %v, in-flight %.2f of %d, CPU %.3fs in %.3fs, timer late p99 %v; reason %q",
		h.IssueLagMax, s.InflightMean, c, h.CPUSeconds, h.WallSeconds, h.TimerLateP99, s.ClientLimitedReason)
	if s.RequestsOK != 8*c {
		t.Fatalf("%d requests ok, want %d", s.RequestsOK, 8*c)
	}
	return s, h
}

// TestClientLimitedFlagsStarvedLoop runs a level whose observer holds
// each worker for 40 ms after every request, as a client too slow to keep
// its closed loop going would, against a server that is never the
// bottleneck. report must flag it as client-limited on the loop check,
// which needs both pieces of evidence the sweep measured: the in-flight
// shortfall and the issue lag that caused it. In fake time
// (testing/synctest) the lag is exactly the 40 ms the hook held.
func TestClientLimitedFlagsStarvedLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const starved = 40 * time.Millisecond // > report.IssueLagLimit, and longer than a request
		s, h := runObserved(t, 4, func() { time.Sleep(starved) })
		if !s.ClientLimited {
			t.Fatalf("a starved level is not flagged client-limited")
		}
		if h.IssueLagMax != starved {
			t.Errorf("IssueLagMax = %v, want exactly the %v the hook held each worker", h.IssueLagMax, starved)
		}
		for _, want := range []string{"in-flight", "with issue lag max 40.0 ms"} {
			if !strings.Contains(s.ClientLimitedReason, want) {
				t.Errorf("reason %q does not name %q", s.ClientLimitedReason, want)
			}
		}
	})
}

// In fake time a cheap hook costs no time at all: the loop has no issue
// lag, and no check fires (the timer is never late there either).
func TestClientLimitedSparesHealthyLoopInFakeTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, h := runObserved(t, 4, func() {})
		if s.ClientLimited || h.IssueLagMax != 0 || h.TimerLateMax != 0 {
			t.Errorf("a healthy level: client-limited %v (%q), issue lag max %v, timer late max %v; want none",
				s.ClientLimited, s.ClientLimitedReason, h.IssueLagMax, h.TimerLateMax)
		}
	})
}

// TestClientLimitedSparesHealthyLoop runs the same level with a cheap hook:
// it must not be flagged. Two of the checks (timer lateness against the 5 ms
// ITL, client CPU with lateness) measure the machine as well as the client,
// and rightly fire when other processes starve this one, as on a busy CI
// host; a level flagged only by them is run again, and the test is skipped
// if the machine never lets one through. A broken loop (in-flight with
// issue lag) in all attempts fails.
func TestClientLimitedSparesHealthyLoop(t *testing.T) {
	var reasons []string
	for range 3 {
		s, _ := runObserved(t, 4, func() {})
		if !s.ClientLimited {
			return
		}
		reasons = append(reasons, s.ClientLimitedReason)
	}
	for _, r := range reasons {
		if !strings.Contains(r, "issue lag") && !strings.Contains(r, "in-flight") {
			t.Skipf("the machine delayed this process in every attempt: %q", reasons)
		}
	}
	t.Fatalf("a healthy level is flagged client-limited in every attempt: %q", reasons)
}
