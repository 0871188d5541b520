package sim

import (
	"sync"
	"testing"
	"time"
)

// TestQueuePlusPrefillWithinTTFT: request by request, the server's queue
// wait (arrival to admission) is never negative and queue wait plus prefill
// (admission to first token) is at most the TTFT (arrival to first token).
// The requests arrive while the scheduler is between steps (the step trace
// submits them, after the step's modelled end and before the next step is
// planned), the case where the step's modelled start precedes the arrival.
func TestQueuePlusPrefillWithinTTFT(t *testing.T) {
	t.Parallel()
	cfg := Config{MaxModelLen: 4096, MaxNumSeqs: 8, PrefillTokensPerSec: 1e6, DecodeBase: 2 * time.Millisecond, NoPrefixCaching: true}.withDefaults()
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		sqs   []*seq
		ready = make(chan *engine, 1)
		e     *engine
	)
	const extra = 6
	trace := func(stepTrace) { // on the scheduler goroutine, between two steps
		mu.Lock()
		defer mu.Unlock()
		if e == nil {
			e = <-ready
		}
		if len(sqs) < 1+extra {
			sq, err := e.submit(job{promptTokens: 16, target: 3, finish: "length"})
			if err == nil {
				sqs = append(sqs, sq)
			}
		}
	}
	eng := startEngine(cfg, newMetrics(), trace)
	t.Cleanup(eng.close)
	ready <- eng
	first, err := eng.submit(job{promptTokens: 16, target: 20, finish: "length"})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	sqs = append([]*seq{first}, sqs...)
	mu.Unlock()
	wait(t, first)
	mu.Lock()
	all := append([]*seq(nil), sqs...)
	mu.Unlock()
	if len(all) < 1+extra {
		t.Fatalf("only %d requests were submitted", len(all))
	}
	wait(t, all...)
	for i, sq := range all {
		queue, prefill, ttft := sq.scheduled.Sub(sq.arrived), sq.firstAt.Sub(sq.scheduled), sq.firstAt.Sub(sq.arrived)
		if queue < 0 {
			t.Errorf("request %d: queue wait %v < 0", i, queue)
		}
		if queue+prefill > ttft || prefill > ttft {
			t.Errorf("request %d: queue %v + prefill %v > TTFT %v", i, queue, prefill, ttft)
		}
	}
}
