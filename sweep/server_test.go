package sweep

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/toksweep/toksweep/client/promscrape"
)

// TestServerSamplerBracketsEachLevel checks that the sampler starts before
// a level's first request and is stopped after its last one, once per
// level, and that its result is the level's Server.
func TestServerSamplerBracketsEachLevel(t *testing.T) {
	f := newFake(2 * time.Millisecond)
	var started, stopped atomic.Int64
	cfg := Config{Load: ClosedLoad(1, 3), Requests: 6, Repeat: 2, Prompt: Cycle(prompts(1))}
	cfg.Server = func(_ context.Context, c int, _ <-chan struct{}) func() *promscrape.LevelMetrics {
		started.Add(1)
		if n := f.n.Load(); n%6 != 0 {
			t.Errorf("C=%d sampler started with %d requests sent", c, n)
		}
		return func() *promscrape.LevelMetrics {
			stopped.Add(1)
			if in := f.inflight.Load(); in != 0 {
				t.Errorf("C=%d sampler stopped with %d requests in flight", c, in)
			}
			return &promscrape.LevelMetrics{Scrapes: c}
		}
	}
	levels, err := collect(t, context.Background(), cfg, f)
	if err != nil {
		t.Fatal(err)
	}
	if started.Load() != 4 || stopped.Load() != 4 {
		t.Fatalf("started %d, stopped %d, want 4 each", started.Load(), stopped.Load())
	}
	for _, l := range levels {
		if l.Server == nil || l.Server.Scrapes != l.Concurrency {
			t.Errorf("C=%d Server = %+v", l.Concurrency, l.Server)
		}
	}
	// Without a sampler there is no server view.
	levels, err = collect(t, context.Background(), Config{Load: ClosedLoad(1), Requests: 1, Prompt: Cycle(prompts(1))}, f)
	if err != nil || levels[0].Server != nil {
		t.Fatalf("err %v, Server %+v", err, levels[0].Server)
	}
}

// TestServerSamplerToldTheLoadsEnd, in fake time: the sampler's loadEnd
// closes when the level's load ends, before its last requests do. Two
// workers of 10 ms requests and 5 tickets: the last ticket is handed out
// at 20 ms, and the level ends at 30 ms. Under a 60 ms Duration the load
// ends at the deadline; an open loop's when its last arrival is handed
// out, 5 ms (sendLead) before its instant.
func TestServerSamplerToldTheLoadsEnd(t *testing.T) {
	const ms = time.Millisecond
	for _, c := range []struct {
		name     string
		cfg      Config
		took     time.Duration
		end, lvl time.Duration // the load's end and the level's, from its start
	}{
		{"closed, counted", Config{Load: ClosedLoad(2), Requests: 5}, 10 * ms, 20 * ms, 30 * ms},
		{"closed, a duration", Config{Load: ClosedLoad(2), Duration: 60 * ms}, 25 * ms, 60 * ms, 75 * ms},
		// 4 arrivals 100 ms apart from sendLead in: the last at 305 ms.
		{"open, counted", Config{Load: RateLoad([]float64{10}, 0, RateSpec{Arrival: Constant}), Requests: 4}, 50 * ms, 300 * ms, 355 * ms},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFake(c.took)
				var began, ended time.Duration
				cfg := c.cfg
				cfg.Prompt = Cycle(prompts(1))
				cfg.Server = func(_ context.Context, _ int, loadEnd <-chan struct{}) func() *promscrape.LevelMetrics {
					began, ended = f.Now(), -1
					stop, watched := make(chan struct{}), make(chan struct{})
					go func() {
						defer close(watched)
						select {
						case <-loadEnd:
							ended = f.Now()
						case <-stop:
						}
					}()
					return func() *promscrape.LevelMetrics {
						close(stop)
						<-watched
						return nil
					}
				}
				levels, err := collect(t, context.Background(), cfg, f)
				if err != nil {
					t.Fatal(err)
				}
				if got := ended - began; ended < 0 || got != c.end {
					t.Errorf("load ended %v into the level (-1: never), want %v", got, c.end)
				}
				if got := levels[0].End - began; got != c.lvl {
					t.Errorf("level ended %v into it, want %v", got, c.lvl)
				}
			})
		})
	}
}
