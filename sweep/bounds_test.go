package sweep

import (
	"context"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// An open-loop level ends at its Duration whatever its rate: at 0.1 req/s
// with --requests 3 the second arrival is due at 10 s, but a 2 s level must
// not wait for it (issue 25, item 5). The level counts as ended on its
// deadline, with the one request it sent.
func TestOpenLoopDurationBoundsASlowRate(t *testing.T) {
	for _, arrival := range []Arrival{Constant, Poisson} {
		synctest.Test(t, func(t *testing.T) {
			f := newFake(100 * time.Millisecond)
			cfg := Config{Load: RateLoad([]float64{0.1}, 0, RateSpec{Arrival: arrival, Seed: 3}), Requests: 3, Duration: 2 * time.Second,
				Prompt: Cycle(prompts(1))}
			t0 := time.Now()
			levels, err := collect(t, context.Background(), cfg, f)
			if err != nil {
				t.Fatal(err)
			}
			l := levels[0]
			if took := time.Since(t0); took > 2*time.Second+time.Millisecond {
				t.Errorf("%s: the 2s level took %v", arrival, took)
			}
			if l.EndReason != Deadline {
				t.Errorf("%s: end reason %q, want %q", arrival, l.EndReason, Deadline)
			}
			if l.End-l.Start < 2*time.Second-time.Millisecond {
				t.Errorf("%s: level lasted %v, want its 2s duration", arrival, l.End-l.Start)
			}
		})
	}
}

// A duration-bounded level's plan is drawn as it goes: 10000 req/s for a
// million hours is no allocation up front (it panicked with makeslice, item
// 6), and the level runs and stops on cancellation like any other.
func TestOpenLoopHugePlanIsLazy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake(0)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		cfg := Config{Load: RateLoad([]float64{10000}, 0, RateSpec{Arrival: Constant}), Duration: 1000000 * time.Hour,
			Prompt: Cycle(prompts(1))}
		levels, err := collect(t, ctx, cfg, f)
		if err == nil || len(levels) != 1 || levels[0].EndReason != Canceled {
			t.Fatalf("levels %+v, err %v: want one canceled level", levels, err)
		}
		if n := len(levels[0].Records); n < 400 || n > 501 {
			t.Errorf("%d requests in 50ms at 10000/s, want about 500", n)
		}
	})
}

// The lazy plan is the plan Instants collects, and it stops below d.
func TestScheduleMatchesArrivalPlan(t *testing.T) {
	sp := RateSpec{Arrival: Gamma, Burstiness: 0.5, Seed: 11}
	want, err := sp.Instants(5, 200, 2)
	if err != nil {
		t.Fatal(err)
	}
	next, err := sp.Schedule(5, 0, 1000000*time.Hour, 2)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]time.Duration, 0, 200)
	for range 200 {
		at, ok := next()
		if !ok {
			t.Fatal("the plan ended early")
		}
		got = append(got, at)
	}
	if !slices.Equal(got, want) {
		t.Error("the lazy plan differs from the collected one")
	}
	if _, err := sp.Instants(5, MaxInstants+1, 0); err == nil {
		t.Error("a collected plan over MaxInstants was drawn")
	}
	if n, _ := sp.CountArrivals(10000, 1000000*time.Hour, 0, 64); n != 64 {
		t.Errorf("CountArrivals counted %d, want its bound 64", n)
	}
}

// A session worker holds at most MaxHeldReplies bytes of replies, dropping
// the oldest (issue 25, item 11: 1 MB replies reached 783 MB).
func TestSessionWorkerHoldsBoundedReplies(t *testing.T) {
	t.Parallel()
	var sw history
	reply := strings.Repeat("x", 300_000)
	for range 100 {
		sw.keep(reply)
	}
	if sw.held > MaxHeldReplies || sw.held != 3*len(reply) || len(sw.replies) != 100 || sw.replies[96] != "" || sw.replies[97] != reply {
		t.Errorf("held %d bytes (bound %d), %d replies, the 97th %d bytes", sw.held, MaxHeldReplies, len(sw.replies), len(sw.replies[96]))
	}
}
