package closed

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/sweep"
)

// The default sweep (levels 1..64, auto requests, 2048 tokens) against a
// server at the assumed 40 tok/s per stream: C=1 runs 8 requests in a row,
// every other level 4 per worker, each request 2048/40 s.
func TestUpFrontEstimateOfTheDefaultSweep(t *testing.T) {
	t.Parallel()
	plan := mode.Timing{Est: Estimate([]int{1, 2, 4, 8, 16, 32, 64}), Repeat: 1, Tokens: 2048}
	perRequest := time.Duration(2048 * float64(time.Second) / mode.AssumedStreamTPS)
	total := time.Duration(8+6*4) * perRequest
	want := fmt.Sprintf("the sweep takes about %.0f minutes: 7 levels × 4–8 requests per worker (up to 2048 output tokens each), "+
		"at an assumed 40 tok/s per stream (%s a request); re-estimated after each level", total.Minutes(), perRequest.Round(time.Second))
	if got := plan.UpFront(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if left := plan.TimeLeft(1, perRequest); left != total-8*perRequest {
		t.Errorf("after C=1: %v left, want %v", left, total-8*perRequest)
	}
}

func TestEstimates(t *testing.T) {
	t.Parallel()
	const sec = time.Second
	cases := []struct {
		name string
		plan mode.Timing
		want string
	}{
		{"repeats and warm-up", mode.Timing{Est: Estimate([]int{2, 4}), Repeat: 3, Requests: 8, Warmup: 4, Tokens: 40},
			// C=2: (8+4)/2 = 6, C=4: (8+4)/4 = 3 requests per worker of 1s, three runs each: 27s.
			"the sweep takes about 25 seconds: 2 levels × 3 runs × 3–6 requests per worker"},
		{"duration bounds the level", mode.Timing{Est: Estimate([]int{1}), Repeat: 1, Duration: 2 * time.Minute, Tokens: 400},
			// 10s a request: 120s, then the last request drains: 130s.
			"the sweep takes about 2 minutes: 1 level × up to 2m0s (--duration) or 8 requests per worker"},
		{"adaptive", mode.Timing{Est: Estimate(nil), Repeat: 1, Tokens: 2400},
			// 60s a request, 4 per worker.
			"levels are chosen as the sweep goes; a level takes about 4 minutes: 4 requests per worker"},
	}
	for _, tc := range cases {
		if got := tc.plan.UpFront(); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: got %s\nwant prefix %s", tc.name, got, tc.want)
		}
	}
	if d := (mode.Timing{Est: Estimate([]int{1}), Repeat: 1, Duration: 2 * time.Minute}).LevelTime(1, 10*sec); d != 130*sec {
		t.Errorf("duration-bounded level: %v, want 130s", d)
	}
}

// Runs counts each level's repeats; PerRequest divides a run's time by the
// requests each worker ran (Rounds); Alone takes out the scale at C.
func TestEstimateMeasures(t *testing.T) {
	t.Parallel()
	p := mode.Timing{Repeat: 3, Requests: 8}
	e := Estimate([]int{2, 4})
	if got := e.Runs(p); got != 6 {
		t.Errorf("Runs %d, want 6", got)
	}
	// C=4, 8 requests: 2 a worker, so a 10s run is 5s a request.
	k := sweep.LevelKey{Mode: sweep.ClosedMode, Concurrency: 4}
	if at, ok := e.PerRequest(p, k, 10*time.Second); !ok || at != 5*time.Second {
		t.Errorf("PerRequest %v %v, want 5s", at, ok)
	}
	if _, ok := e.PerRequest(p, sweep.LevelKey{Mode: sweep.ClosedMode}, time.Second); ok {
		t.Error("C=0 measured a request")
	}
	// Four slots of a step that grows with the batch: a request at C=4
	// takes step(4)/step(1) = 2× its time alone.
	p.Slots, p.Step = 4, func(b int) time.Duration { return time.Duration(b+2) * time.Millisecond }
	if got := e.Alone(p, k, 10*time.Second); got != 5*time.Second {
		t.Errorf("Alone %v, want 5s", got)
	}
	if Estimate(nil).Runs(p) != 0 {
		t.Error("a search plans runs")
	}
}
