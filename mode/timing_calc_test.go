package mode

import (
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/sweep"
)

func TestScale(t *testing.T) {
	t.Parallel()
	step := func(b int) time.Duration { return time.Duration(10+b) * time.Millisecond }
	for _, c := range []struct {
		p    Timing
		c    int
		want float64
	}{
		{Timing{}, 64, 1},                                // nothing known: the level measures it
		{Timing{Slots: 4}, 2, 1},                         // below the slots, no wait
		{Timing{Slots: 4}, 12, 3},                        // 12 in a closed loop, 4 slots: 3 generations each
		{Timing{Step: step}, 5, 15.0 / 11},               // a batch of 5 steps 15 ms against 11 alone
		{Timing{Slots: 4, Step: step}, 8, 2 * 14.0 / 11}, // batch capped at 4, and 8/4 waits
	} {
		if got := c.p.Scale(c.c); got != c.want {
			t.Errorf("Scale(%d) with slots %d: %v, want %v", c.c, c.p.Slots, got, c.want)
		}
	}
}

func TestLevelTime(t *testing.T) {
	t.Parallel()
	p := Timing{Requests: 10, Warmup: 2}
	if got := p.Rounds(4); got != 3 { // ceil((10+2)/4)
		t.Errorf("Rounds(4) = %v, want 3", got)
	}
	if got := (Timing{}).Rounds(2); got != 4 { // AutoRequests(2) = 8 over 2 workers
		t.Errorf("Rounds(2) with the auto count = %v, want 4", got)
	}
	if got := p.LevelTime(4, time.Second); got != 3*time.Second {
		t.Errorf("LevelTime(4, 1s) = %v, want 3s", got)
	}
	p.Think = 500 * time.Millisecond
	if got := p.LevelTime(4, time.Second); got != 4500*time.Millisecond {
		t.Errorf("LevelTime with think 0.5s = %v, want 4.5s", got)
	}
	if got := p.Alone(4, 1500*time.Millisecond); got != time.Second {
		t.Errorf("Alone = %v, want 1s", got)
	}
	// --duration bounds the measured phase: duration + the warm-up rounds
	// + one request draining.
	d := Timing{Requests: 1000, Warmup: 4, Duration: 10 * time.Second}
	if got := d.LevelTime(4, time.Second); got != 12*time.Second {
		t.Errorf("LevelTime bounded by --duration = %v, want 12s", got)
	}
	d.Requests = 0 // no --requests: the duration alone bounds it
	if got := d.LevelTime(4, time.Second); got != 12*time.Second {
		t.Errorf("LevelTime by --duration alone = %v, want 12s", got)
	}
}

func TestAssumedPerRequest(t *testing.T) {
	t.Parallel()
	p := Timing{Tokens: 200}
	if got := p.AssumedPerRequest(); got != 5*time.Second { // 200 tokens at 40 tok/s
		t.Errorf("assumed %v, want 5s", got)
	}
	if got := p.SpeedText(5 * time.Second); got != "at an assumed 40 tok/s per stream (5s a request)" {
		t.Errorf("SpeedText %q", got)
	}
	p.TTFT, p.PerToken = 300*time.Millisecond, 10*time.Millisecond
	if got := p.AssumedPerRequest(); got != 2300*time.Millisecond {
		t.Errorf("measured %v, want 2.3s", got)
	}
	want := "(up to 200 output tokens each), at the pre-flight request's 100 tok/s per stream after a TTFT of 300ms (2.3s a request, alone on the server); re-estimated after each level"
	if got := p.How(2300 * time.Millisecond); got != want {
		t.Errorf("How\n got %q\nwant %q", got, want)
	}
	p.Varied = true
	if got := p.How(time.Second); !strings.HasPrefix(got, "(a mean of 200 output tokens each)") {
		t.Errorf("How of varied targets %q", got)
	}
}

func TestNoEstimate(t *testing.T) {
	t.Parallel()
	var p Timing
	if p.UpFront() != "" || p.Runs() != 0 || p.TimeLeft(0, time.Second) != 0 {
		t.Error("no mode's estimate says something")
	}
	if _, ok := p.Estimate().PerRequest(p, sweep.LevelKey{}, time.Second); ok {
		t.Error("no estimate measures a request")
	}
	if got := p.Estimate().Alone(p, sweep.LevelKey{}, time.Second); got != time.Second {
		t.Errorf("Alone %v", got)
	}
}

func TestWords(t *testing.T) {
	t.Parallel()
	if got := (Timing{Repeat: 2}).RunsText(3, "level"); got != "3 levels × 2 runs" {
		t.Errorf("RunsText %q", got)
	}
	if got := (Timing{}).RunsText(1, "level"); got != "1 level" {
		t.Errorf("RunsText %q", got)
	}
	if Span(4, 8) != "4–8" || Span(4, 4) != "4" {
		t.Errorf("Span %q %q", Span(4, 8), Span(4, 4))
	}
	if RoundDur(1234*time.Millisecond) != 1200*time.Millisecond || RoundDur(12345*time.Millisecond) != 12*time.Second {
		t.Error("RoundDur")
	}
}
