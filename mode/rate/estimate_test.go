package rate

import (
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/mode"
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
		plan mode.Timing
		want string
	}{
		// 1 req/s: 20 requests, 20s, +1s for the last; 4 req/s: 40 requests, 10s, +1s: 32s.
		{"auto requests", mode.Timing{Est: Estimate{Rates: []float64{1, 4}}, Repeat: 1, Tokens: 40},
			"the sweep takes about 30 seconds: 2 rates × 20–40 requests at the offered rate (up to 40 output tokens each, 1s a request"},
		// --duration alone: each run is 120s of arrivals at 2 req/s, 240
		// requests, +10s for the last: 2 × 130s = 4.3 minutes. (This case
		// pinned "or 20 requests", the count without --duration.)
		{"duration", mode.Timing{Est: Estimate{Rates: []float64{2}}, Repeat: 2, Duration: 2 * time.Minute, Tokens: 400},
			"the sweep takes about 4 minutes: 1 rate × 2 runs × 2m0s (--duration) of arrivals at the offered rate, about 240 requests (up to 400 output tokens each, 10s a request"},
		// 1 req/s: 10 requests in 10s (+1s), 4 req/s: 2.5s (+1s), 14.5s; neither reaches 30s.
		{"requests and duration", mode.Timing{Est: Estimate{Rates: []float64{1, 4}}, Repeat: 1, Requests: 10, Duration: 30 * time.Second, Tokens: 40},
			"the sweep takes about 15 seconds: 2 rates × up to 30s (--duration) or 10 requests at the offered rate (up to 40 output tokens each"},
		{"auto rates", mode.Timing{Est: Estimate{Auto: true}, Repeat: 1, Tokens: 40},
			"rates are chosen as the sweep goes; a level offers about 10s of arrivals at its rate (at least 20 requests) (up to 40 output tokens each"},
		{"auto rates, requests", mode.Timing{Est: Estimate{Auto: true}, Repeat: 1, Requests: 50, Tokens: 40},
			"rates are chosen as the sweep goes; a level offers 50 requests at its rate (up to 40 output tokens each"},
		// Before, these two said "about 10s of arrivals (at least 20
		// requests)" and "50 requests", as if --duration were not given.
		{"auto rates, duration", mode.Timing{Est: Estimate{Auto: true}, Repeat: 1, Duration: 30 * time.Second, Tokens: 40},
			"rates are chosen as the sweep goes; a level offers 30s (--duration) of arrivals at its rate (up to 40 output tokens each"},
		{"auto rates, requests and duration", mode.Timing{Est: Estimate{Auto: true}, Repeat: 1, Requests: 50, Duration: 30 * time.Second, Tokens: 40},
			"rates are chosen as the sweep goes; a level offers 50 requests at its rate, or fewer if 30s (--duration) ends first (up to 40 output tokens each"},
	}
	for _, tc := range cases {
		got := tc.plan.UpFront()
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: got %s\nwant prefix %s", tc.name, got, tc.want)
		}
		for _, closed := range []string{"per worker", "levels are chosen", "worker"} {
			if strings.Contains(got, closed) {
				t.Errorf("%s: %q has the closed loop's words %q", tc.name, got, closed)
			}
		}
	}
	p := mode.Timing{Est: Estimate{Rates: []float64{1, 4}}, Repeat: 1, Warmup: 4}
	if d := rateLevelTime(p, 4, sec); d != 12*sec { // (4+40)/4 = 11s, +1s
		t.Errorf("4 req/s with 4 warm-up: %v, want 12s", d)
	}
	p.Requests, p.Duration = 1000, 30*time.Second
	if d := rateLevelTime(p, 4, sec); d != 32*sec { // 1s warm-up + 30s bound + 1s
		t.Errorf("4 req/s, 1000 requests, 30s: %v, want 32s", d)
	}
	p.Requests = 0
	if d := rateLevelTime(p, 4, sec); d != 32*sec { // 1s warm-up + 30s of arrivals + 1s
		t.Errorf("4 req/s, 30s alone: %v, want 32s", d)
	}
	if n := rateRequests(p, 4); n != 120 { // 4 req/s × 30s
		t.Errorf("4 req/s, 30s alone: %d requests, want 120", n)
	}
}
