package app

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The default sweep (levels 1..64, auto requests, 2048 tokens) against a
// server at the assumed 40 tok/s per stream: C=1 runs 8 requests in a row,
// every other level 4 per worker, each request 2048/40 s.
func TestUpFrontEstimateOfTheDefaultSweep(t *testing.T) {
	t.Parallel()
	plan := sweepPlan{levels: []int{1, 2, 4, 8, 16, 32, 64}, repeat: 1, tokens: 2048}
	perRequest := time.Duration(2048 * float64(time.Second) / assumedStreamTPS)
	total := time.Duration(8+6*4) * perRequest
	want := fmt.Sprintf("the sweep takes about %.0f minutes: 7 levels × 4–8 requests per worker (up to 2048 output tokens each), "+
		"at an assumed 40 tok/s per stream (%s a request); re-estimated after each level", total.Minutes(), perRequest.Round(time.Second))
	if got := plan.upFront(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if left := plan.timeLeft(1, perRequest); left != total-8*perRequest {
		t.Errorf("after C=1: %v left, want %v", left, total-8*perRequest)
	}
}

func TestEstimates(t *testing.T) {
	t.Parallel()
	const sec = time.Second
	cases := []struct {
		name string
		plan sweepPlan
		want string
	}{
		{"repeats and warm-up", sweepPlan{levels: []int{2, 4}, repeat: 3, requests: 8, warmup: 4, tokens: 40},
			// C=2: (8+4)/2 = 6, C=4: (8+4)/4 = 3 requests per worker of 1s, three runs each: 27s.
			"the sweep takes under a minute: 2 levels × 3 runs × 3–6 requests per worker"},
		{"duration bounds the level", sweepPlan{levels: []int{1}, repeat: 1, duration: 2 * time.Minute, tokens: 400},
			// 10s a request: 120s, then the last request drains: 130s.
			"the sweep takes about 2 minutes: 1 level × up to 2m0s (--duration) or 8 requests per worker"},
		{"adaptive", sweepPlan{repeat: 1, tokens: 2400},
			// 60s a request, 4 per worker.
			"levels are chosen as the sweep goes; a level takes about 4 minutes: 4 requests per worker"},
	}
	for _, tc := range cases {
		if got := tc.plan.upFront(); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: got %s\nwant prefix %s", tc.name, got, tc.want)
		}
	}
	if d := (sweepPlan{levels: []int{1}, repeat: 1, duration: 2 * time.Minute}).levelTime(1, 10*sec); d != 130*sec {
		t.Errorf("duration-bounded level: %v, want 130s", d)
	}
}

func TestAbout(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		59 * time.Second: "under a minute", 80 * time.Second: "about 1 minute",
		27 * time.Minute: "about 27 minutes", 150 * time.Minute: "about 2.5 hours",
	} {
		if got := about(d); got != want {
			t.Errorf("about(%v) = %q, want %q", d, got, want)
		}
	}
}

// A sweep says up front how long it will take, and after each level but
// the last how long is left, measured; off a terminal, in plain lines.
func TestSweepSaysHowLongItTakes(t *testing.T) {
	t.Parallel()
	url := steadySim(t, nil)
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--url", url, "--levels", "1,2", "--requests", "4",
		"--max-tokens", "8", "--metrics-url", "off", "--out", filepath.Join(t.TempDir(), "run"))
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	plan := sweepPlan{levels: []int{1, 2}, repeat: 1, requests: 4, tokens: 8}
	for _, want := range []string{
		"\ntoksweep: " + plan.upFront() + "\n",
		"\ntoksweep: under a minute left for 1 more level run (measured ",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if n := strings.Count(stderr, "more level run"); n != 1 || strings.Contains(stderr, "\r") {
		t.Errorf("want one re-estimate (after C=1, none after the last level) and no carriage return:\n%q", stderr)
	}
}
