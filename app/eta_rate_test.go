package app

import (
	"strings"
	"testing"
	"time"
)

// A rate run's pre-run line counts requests at each offered rate, not
// requests per worker, and its levels are the rates given, not "chosen as
// the sweep goes". Each bound is said as it works: --duration alone makes
// a level that long with no count (rate × duration arrivals), --requests
// with it ends a level at whichever comes first.
func TestUpFrontEstimateOfARateRun(t *testing.T) {
	t.Parallel()
	const sec = time.Second
	cases := []struct {
		name string
		plan sweepPlan
		want string
	}{
		// 1 req/s: 20 requests, 20s, +1s for the last; 4 req/s: 40 requests, 10s, +1s: 32s.
		{"auto requests", sweepPlan{est: rateLevels{rates: []float64{1, 4}}, repeat: 1, tokens: 40},
			"the sweep takes about 30 seconds: 2 rates × 20–40 requests at the offered rate (up to 40 output tokens each, 1s a request"},
		// --duration alone: each run is 120s of arrivals at 2 req/s, 240
		// requests, +10s for the last: 2 × 130s = 4.3 minutes. (This case
		// pinned "or 20 requests", the count without --duration.)
		{"duration", sweepPlan{est: rateLevels{rates: []float64{2}}, repeat: 2, duration: 2 * time.Minute, tokens: 400},
			"the sweep takes about 4 minutes: 1 rate × 2 runs × 2m0s (--duration) of arrivals at the offered rate, about 240 requests (up to 400 output tokens each, 10s a request"},
		// 1 req/s: 10 requests in 10s (+1s), 4 req/s: 2.5s (+1s), 14.5s; neither reaches 30s.
		{"requests and duration", sweepPlan{est: rateLevels{rates: []float64{1, 4}}, repeat: 1, requests: 10, duration: 30 * time.Second, tokens: 40},
			"the sweep takes about 15 seconds: 2 rates × up to 30s (--duration) or 10 requests at the offered rate (up to 40 output tokens each"},
		{"auto rates", sweepPlan{est: rateLevels{auto: true}, repeat: 1, tokens: 40},
			"rates are chosen as the sweep goes; a level offers about 10s of arrivals at its rate (at least 20 requests) (up to 40 output tokens each"},
		{"auto rates, requests", sweepPlan{est: rateLevels{auto: true}, repeat: 1, requests: 50, tokens: 40},
			"rates are chosen as the sweep goes; a level offers 50 requests at its rate (up to 40 output tokens each"},
		// Before, these two said "about 10s of arrivals (at least 20
		// requests)" and "50 requests", as if --duration were not given.
		{"auto rates, duration", sweepPlan{est: rateLevels{auto: true}, repeat: 1, duration: 30 * time.Second, tokens: 40},
			"rates are chosen as the sweep goes; a level offers 30s (--duration) of arrivals at its rate (up to 40 output tokens each"},
		{"auto rates, requests and duration", sweepPlan{est: rateLevels{auto: true}, repeat: 1, requests: 50, duration: 30 * time.Second, tokens: 40},
			"rates are chosen as the sweep goes; a level offers 50 requests at its rate, or fewer if 30s (--duration) ends first (up to 40 output tokens each"},
	}
	for _, tc := range cases {
		got := tc.plan.upFront()
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: got %s\nwant prefix %s", tc.name, got, tc.want)
		}
		for _, closed := range []string{"per worker", "levels are chosen", "worker"} {
			if strings.Contains(got, closed) {
				t.Errorf("%s: %q has the closed loop's words %q", tc.name, got, closed)
			}
		}
	}
	p := sweepPlan{est: rateLevels{rates: []float64{1, 4}}, repeat: 1, warmup: 4}
	if d := p.rateLevelTime(4, sec); d != 12*sec { // (4+40)/4 = 11s, +1s
		t.Errorf("4 req/s with 4 warm-up: %v, want 12s", d)
	}
	p.requests, p.duration = 1000, 30*time.Second
	if d := p.rateLevelTime(4, sec); d != 32*sec { // 1s warm-up + 30s bound + 1s
		t.Errorf("4 req/s, 1000 requests, 30s: %v, want 32s", d)
	}
	p.requests = 0
	if d := p.rateLevelTime(4, sec); d != 32*sec { // 1s warm-up + 30s of arrivals + 1s
		t.Errorf("4 req/s, 30s alone: %v, want 32s", d)
	}
	if n := p.rateRequests(4); n != 120 { // 4 req/s × 30s
		t.Errorf("4 req/s, 30s alone: %d requests, want 120", n)
	}
}
