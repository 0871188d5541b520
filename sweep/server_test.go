package sweep

import (
	"context"
	"sync/atomic"
	"testing"
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
	cfg.Server = func(_ context.Context, c int) func() *promscrape.LevelMetrics {
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
