package app

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/mode/closed"
	"github.com/toksweep/toksweep/sweep"
)

// steadyDoer is a server (a sweep.Doer) whose every request takes took,
// whatever the load: the closed-loop estimate's own model of a server about
// which nothing is known (scale 1). Its clock is the time since epoch, so
// it must be made inside the bubble that runs it.
type steadyDoer struct {
	epoch time.Time
	took  time.Duration
}

func (d *steadyDoer) Now() time.Duration { return time.Since(d.epoch) }

func (d *steadyDoer) Do(ctx context.Context, p client.Prompt) client.Record {
	r := client.Record{PromptID: p.ID, Start: d.Now(), Status: 200}
	select {
	case <-time.After(d.took):
	case <-ctx.Done():
		r.ErrorClass = client.Canceled
	}
	r.End = d.Now()
	return r
}

// startTimes is an Observer that notes when each level starts, since t0.
type startTimes struct {
	sweep.NopObserver
	t0 time.Time
	at []time.Duration
}

func (s *startTimes) LevelStarted(sweep.Level, int) { s.at = append(s.at, time.Since(s.t0)) }

// TestClosedLoopETAIsTheSweepsTime: in fake time (testing/synctest) the
// closed-loop estimate of the time left (timeLeft) is exactly what the
// sweep then takes, before the first level and at the start of every
// later one, when a request takes a known time: levels 1, 3 and 4 with 8
// measured and 2 warm-up requests, twice, are 10 + 4 + 3 rounds of 250 ms
// a run, 8.5 s in all.
func TestClosedLoopETAIsTheSweepsTime(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const per = 250 * time.Millisecond
		o := withLevels(&options{Line: mode.Line{Requests: 8, Warmup: 2, Repeat: 2}, MaxTokens: 100}, 1, 3, 4)
		plan := newTiming(o, nil)
		t0 := time.Now()
		starts := &startTimes{t0: t0}
		cfg := sweep.Config{Load: closed.Load{Levels: closed.Of(&o.Line).Levels}, Requests: o.Requests, Warmup: o.Warmup, Repeat: o.Repeat,
			Prompt: sweep.Cycle([]client.Prompt{{Text: "p"}}), Observer: starts}
		if err := sweep.Run(context.Background(), cfg, &steadyDoer{epoch: time.Now(), took: per}, func(sweep.Level) error { return nil }); err != nil {
			t.Fatal(err)
		}
		total := time.Since(t0)
		if want := 2 * 17 * per; total != want || plan.TimeLeft(0, per) != want {
			t.Errorf("the sweep took %v, estimated %v; want both %v", total, plan.TimeLeft(0, per), want)
		}
		if len(starts.at) != 6 {
			t.Fatalf("%d level runs, want 6", len(starts.at))
		}
		for k, at := range starts.at {
			if left := plan.TimeLeft(k, per); left != total-at {
				t.Errorf("at run %d (%v in): estimated %v left, the sweep took %v more", k+1, at, left, total-at)
			}
		}
	})
}
