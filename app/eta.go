package app

import (
	"cmp"
	"fmt"
	"math"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/sweep"
)

// assumedStreamTPS is the per-stream output rate the estimate made before
// any level assumes: about what one stream of a large model on a real GPU
// server gets under load. Each finished level replaces it by a measurement.
const assumedStreamTPS = 40

// sweepPlan is what the time estimates need from the settings.
type sweepPlan struct {
	levels []int // in run order; nil when the levels are chosen adaptively
	// rates are an open loop's offered rates in run order (--rates);
	// rateAuto: chosen as the sweep goes (--rates auto).
	rates    []float64
	rateAuto bool
	replay   *replaySettings // a trace replay (eta_replay.go); nil otherwise
	repeat   int
	requests int // measured requests per level; 0: sweep.AutoRequests(C)
	warmup   int
	duration time.Duration // bound on each level's measured phase; 0: none
	tokens   float64       // output tokens expected per request: the mean target
}

func newSweepPlan(o *options, prompts []client.Prompt) sweepPlan {
	p := sweepPlan{repeat: max(o.Repeat, 1), requests: o.Requests, warmup: o.Warmup, duration: o.Duration,
		tokens: meanTarget(prompts, o.MaxTokens)}
	if !o.Auto {
		p.levels = o.Levels
	}
	if o.Open.on() {
		p.levels, p.rates, p.rateAuto = nil, o.Open.Rates, o.Open.Auto
	}
	if o.Replay.on() {
		p.replay = &o.Replay
	}
	return p
}

// meanTarget is the mean output target of the prompts: each one's own
// max_tokens, or maxTokens.
func meanTarget(prompts []client.Prompt, maxTokens int) float64 {
	if len(prompts) == 0 {
		return float64(maxTokens)
	}
	sum := 0
	for _, p := range prompts {
		sum += cmp.Or(p.MaxTokens, maxTokens)
	}
	return float64(sum) / float64(len(prompts))
}

// rounds is how many requests one worker runs at level c, warm-up
// included: a closed-loop level lasts about rounds × one request's time.
func (p sweepPlan) rounds(c int) float64 {
	n := p.requests
	if n == 0 {
		n = sweep.AutoRequests(c)
	}
	return math.Ceil(float64(max(n, c)+p.warmup) / float64(c))
}

// levelTime estimates one run of level c when a request takes perRequest.
func (p sweepPlan) levelTime(c int, perRequest time.Duration) time.Duration {
	t := time.Duration(p.rounds(c) * float64(perRequest))
	if p.duration > 0 {
		warm := time.Duration(math.Ceil(float64(p.warmup)/float64(c)) * float64(perRequest))
		if bound := p.duration + warm + perRequest; p.requests == 0 || t > bound {
			t = bound // the measured phase ends at duration; the last requests drain
		}
	}
	return t
}

// timeLeft estimates the runs of the sweep after the first done ones.
func (p sweepPlan) timeLeft(done int, perRequest time.Duration) time.Duration {
	var t time.Duration
	run := 0
	for _, c := range p.levels {
		for range p.repeat {
			if run >= done {
				t += p.levelTime(c, perRequest)
			}
			run++
		}
	}
	return t
}

// runs is the number of level runs the sweep makes (0 when adaptive).
func (p sweepPlan) runs() int { return len(p.levels) * p.repeat }

// assumedPerRequest is one request's time at assumedStreamTPS.
func (p sweepPlan) assumedPerRequest() time.Duration {
	return time.Duration(p.tokens / assumedStreamTPS * float64(time.Second))
}

// upFront is the estimate said before the first level, from the settings
// alone: "the sweep takes about 27 minutes: 7 levels × 4–8 requests per
// worker (up to 2048 output tokens each), at an assumed 40 tok/s per
// stream (51s a request); ...".
func (p sweepPlan) upFront() string {
	per := p.assumedPerRequest()
	how := fmt.Sprintf("(up to %.0f output tokens each), at an assumed %d tok/s per stream (%s a request); re-estimated after each level",
		p.tokens, assumedStreamTPS, roundDur(per))
	if p.replay != nil {
		return p.replayUpFront(p.replay)
	}
	if len(p.rates) > 0 || p.rateAuto {
		return p.rateUpFront(per)
	}
	if len(p.levels) == 0 {
		return fmt.Sprintf("levels are chosen as the sweep goes; a level takes %s: %.0f requests per worker %s",
			about(p.levelTime(4, per)), p.rounds(4), how)
	}
	lo, hi := math.Inf(1), 0.0
	for _, c := range p.levels {
		lo, hi = min(lo, p.rounds(c)), max(hi, p.rounds(c))
	}
	rounds := fmt.Sprintf("%.0f", lo)
	if hi > lo {
		rounds = fmt.Sprintf("%.0f–%.0f", lo, hi)
	}
	runs := plural(len(p.levels), "level")
	if p.repeat > 1 {
		runs += fmt.Sprintf(" × %d runs", p.repeat)
	}
	if p.duration > 0 {
		return fmt.Sprintf("the sweep takes %s: %s × up to %s (--duration) or %s requests per worker %s",
			about(p.timeLeft(0, per)), runs, p.duration, rounds, how)
	}
	return fmt.Sprintf("the sweep takes %s: %s × %s requests per worker %s", about(p.timeLeft(0, per)), runs, rounds, how)
}

// about says a long duration for people: "under a minute", "about 1
// minute", "about 26 minutes", "about 2.5 hours".
func about(d time.Duration) string {
	switch m := d.Minutes(); {
	case m < 1:
		return "under a minute"
	case m < 1.5:
		return "about 1 minute"
	case m < 120:
		return fmt.Sprintf("about %.0f minutes", m)
	default:
		return fmt.Sprintf("about %.1f hours", d.Hours())
	}
}

// roundDur is d to the second (to 0.1s below 10s).
func roundDur(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
