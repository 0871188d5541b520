package app

import (
	"strings"
	"testing"
	"time"
)

// A rate run's pre-run line counts requests at each offered rate, not
// requests per worker, and its levels are the rates given, not "chosen as
// the sweep goes".
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
		// 120s of arrivals, +10s for the last request.
		{"duration", sweepPlan{est: rateLevels{rates: []float64{2}}, repeat: 2, duration: 2 * time.Minute, tokens: 400},
			"the sweep takes about 4 minutes: 1 rate × 2 runs × up to 2m0s (--duration) or 20 requests at the offered rate"},
		{"auto rates", sweepPlan{est: rateLevels{auto: true}, repeat: 1, tokens: 40},
			"rates are chosen as the sweep goes; a level offers about 10s of arrivals at its rate (at least 20 requests)"},
		{"auto rates, requests", sweepPlan{est: rateLevels{auto: true}, repeat: 1, requests: 50, tokens: 40},
			"rates are chosen as the sweep goes; a level offers 50 requests at its rate"},
	}
	for _, tc := range cases {
		got := tc.plan.upFront()
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: got %s\nwant prefix %s", tc.name, got, tc.want)
		}
		if strings.Contains(got, "per worker") {
			t.Errorf("%s: %q speaks of workers", tc.name, got)
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
}
