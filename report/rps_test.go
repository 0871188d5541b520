package report

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
)

// TestRequestsPerSMatchesTokenRate: when every request is the same length
// and carries the same tokens, requests_per_s × tokens per request must equal
// aggregate_output_tps (both are measured over the same window), however the
// workers' rounds line up with the window's edges. The old estimator, which
// counted the requests ending in the window, fails this when the workers
// finish a little apart: the window ends at the earliest worker's last end,
// which cuts off every other worker's last request.
func TestRequestsPerSMatchesTokenRate(t *testing.T) {
	const (
		tokens = 1000
		gap    = time.Millisecond
		length = tokens * gap // one token every gap, the last at the end
	)
	layouts := []struct {
		name    string
		stagger func(c int) time.Duration
	}{
		{"lockstep", func(int) time.Duration { return 0 }},                          // every worker ends at the same instants
		{"near lockstep", func(int) time.Duration { return 10 * time.Microsecond }}, // a jitter of 10 µs per worker
		{"staggered", func(c int) time.Duration { return length / time.Duration(2*c) }},
	}
	for _, c := range []int{1, 4, 32} {
		for _, n := range []int{1, 2, 8} {
			for _, lay := range layouts {
				t.Run(fmt.Sprintf("C=%d/%d per worker/%s", c, n, lay.name), func(t *testing.T) {
					s := Summarize(level(c, closedLoop(c, n, lay.stagger(c), gap, gap, tokens, 10)...), Settings{})
					if s.WindowFallback {
						t.Fatalf("window [%v, %v] fell back", s.WindowStart, s.WindowEnd)
					}
					fromTokens := s.AggregateOutputTPS / tokens
					t.Logf("requests_per_s %.4f, aggregate_output_tps / %d = %.4f", s.RequestsPerS, tokens, fromTokens)
					if rel := s.RequestsPerS/fromTokens - 1; math.Abs(rel) > 0.01 {
						t.Errorf("requests_per_s = %.4f, aggregate_output_tps / %d = %.4f (%+.2f%%)",
							s.RequestsPerS, tokens, fromTokens, 100*rel)
					}
					// Both must also be the truth: c workers, each finishing one
					// request per length.
					if want := float64(c) / length.Seconds(); math.Abs(s.RequestsPerS/want-1) > 0.01 {
						t.Errorf("requests_per_s = %.4f, want %.4f (C / request length)", s.RequestsPerS, want)
					}
				})
			}
		}
	}
}

// TestRequestsPerSWithQueueing checks the exact figure where requests
// queue: a server with one slot, 1 s per answer (10 tokens, one every
// 100 ms), two workers. Worker 1's first request waits 1 s for the slot,
// and so does every request after the first.
//
//	worker 0: A [0, 1] decodes [0, 1];  C [1, 3] decodes [2, 3]
//	worker 1: B [0, 2] decodes [1, 2];  D [2, 4] decodes [3, 4]
//
// Window [0, 3] s. The server answers 1 request/s and delivers 10 tok/s.
// By chunks: A, B, C whole, D none = 3 / 3 s = 1.0 req/s. Counting each
// request by the share of its duration in the window would give
// (1 + 1 + 1 + ½) / 3 = 1.1667: the window catches the first round, whose
// A did not queue, so durations there are not those of the steady state.
func TestRequestsPerSWithQueueing(t *testing.T) {
	worker1 := func(r client.Record) client.Record { r.Worker = 1; return r }
	s := Summarize(level(2,
		stream(0, 100*msec, 100*msec, 10),                       // A
		worker1(stream(0, 1100*msec, 100*msec, 10)),             // B
		stream(time.Second, 1100*msec, 100*msec, 10),            // C
		worker1(stream(2*time.Second, 1100*msec, 100*msec, 10)), // D
	), Settings{})
	got := figures(s)
	for col, want := range map[string]string{"window_s": "3.000", "aggregate_output_tps": "10.000", "requests_per_s": "1.0000"} {
		if got[col] != want {
			t.Errorf("%s = %s, want %s", col, got[col], want)
		}
	}
}
