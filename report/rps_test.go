package report

import (
	"fmt"
	"math"
	"testing"
	"time"
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
					s := Summarize(level(c, closedLoop(c, n, lay.stagger(c), gap, gap, tokens, 10)...))
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

// TestRequestsPerSShares checks the estimator's exact figure on a small
// case: two workers, one measured 1 s request each, worker 1 starting 0.4 s
// after worker 0. Window [1.4, 2.0] s (0.6 s); each request has 0.6 s of its
// 1 s inside: 0.6 + 0.6 = 1.2 requests / 0.6 s = 2 req/s. Counting the
// requests ending in the window would give 1 / 0.6 = 1.6667.
func TestRequestsPerSShares(t *testing.T) {
	s := Summarize(level(2, closedLoop(2, 1, 400*msec, 100*msec, 100*msec, 10, 5)...))
	got := figures(s)
	for col, want := range map[string]string{"window_s": "0.600", "requests_per_s": "2.0000"} {
		if got[col] != want {
			t.Errorf("%s = %s, want %s", col, got[col], want)
		}
	}
}
