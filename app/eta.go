package app

import (
	"cmp"
	"fmt"
	"math"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/internal/english"
	"github.com/toksweep/toksweep/sim"
	"github.com/toksweep/toksweep/sweep"
)

// assumedStreamTPS is the per-stream output rate the estimate made before
// any level assumes: about what one stream of a large model on a real GPU
// server gets under load. Each finished level replaces it by a measurement.
const assumedStreamTPS = 40

// sweepPlan is what the time estimates need from the settings.
type sweepPlan struct {
	// est is the chosen mode's estimates (mode.estimate); nil is the
	// closed loop's at levels (nil: chosen as the sweep goes), the
	// shorthand of tests.
	est      estimate
	levels   []int
	repeat   int
	requests int // measured requests per level; 0: sweep.AutoRequests(C)
	warmup   int
	duration time.Duration // bound on each level's measured phase; 0: none
	tokens   float64       // output tokens expected per request: the mean target
	varied   bool          // the prompts' targets differ: tokens is a mean, not a bound
	// ttft and perToken are the pre-flight request's measured time to first
	// token and time per output token; 0 when it was not measured.
	ttft, perToken time.Duration
	// slots is the server's batch capacity when known (--sim: the preset's
	// max_num_seqs), 0 when not; step, when known, is its decode step time
	// with b sequences running. See scale.
	slots int
	step  func(b int) time.Duration
	// think is the mean pause between a session's turns (--think-time),
	// counted before every request (a session's first has none, so it
	// overestimates by one pause a session): the worker idles, whatever C.
	think time.Duration
}

func newSweepPlan(o *options, prompts []client.Prompt) sweepPlan {
	p := sweepPlan{repeat: max(o.Repeat, 1), requests: o.Requests, warmup: o.Warmup, duration: o.Duration,
		tokens: meanTarget(prompts, o.MaxTokens), varied: variedTargets(prompts, o.MaxTokens)}
	if m := o.mode(); m.estimate != nil {
		p.est = m.estimate(o)
	}
	if o.check.measured {
		p.ttft, p.perToken = preflightSpeed(o.check.rec)
	}
	p.think = o.Work.Think.Mean
	if cfg, err := sim.Preset(o.SimPreset); o.Sim && err == nil {
		p.slots, p.step = cfg.MaxNumSeqs, simStep(cfg, p.tokens)
	}
	return p
}

// estimate is a mode's time estimates: the line said before the first
// level and, where the mode knows its levels before the sweep, the time
// the runs after the first done ones take, re-estimated as levels end.
type estimate interface {
	// upFront is the line said before the first level.
	upFront(p sweepPlan) string
	// runs is the number of level runs planned; 0 when a search chooses
	// them (no re-estimate of the sweep's time left).
	runs(p sweepPlan) int
	// timeLeft is the time of the runs after the first done, when a
	// request alone on the server takes perRequest.
	timeLeft(p sweepPlan, done int, perRequest time.Duration) time.Duration
	// perRequest is one request's time at level k, measured from a run of
	// it that took elapsed (ok false: the run measures none), and alone
	// its time alone on the server, the unit of timeLeft.
	perRequest(p sweepPlan, k sweep.LevelKey, elapsed time.Duration) (at time.Duration, ok bool)
	alone(p sweepPlan, k sweep.LevelKey, at time.Duration) time.Duration
}

// estimate is the chosen mode's estimates.
func (p sweepPlan) estimate() estimate {
	if p.est == nil {
		return closedLevels(p.levels)
	}
	return p.est
}

// simStep is the simulator's decode step time with b sequences running,
// each with a context of about half its output (sim.Config's step model;
// prompts add little at the presets' costs).
func simStep(cfg sim.Config, tokens float64) func(b int) time.Duration {
	return func(b int) time.Duration {
		ctx := time.Duration(float64(b) * tokens / 2 * float64(cfg.DecodePerCtxToken))
		return cfg.DecodeBase + time.Duration(b)*cfg.DecodePerSeq + ctx
	}
}

// scale is how much longer a request takes at level c than alone, from
// what is known of the server: with its step model, each step of a batch
// of min(c, slots) sequences lasts step(b)/step(1) as long; with its batch
// capacity, a closed loop of c > slots requests keeps c − slots of them
// waiting, so each request's time, its wait included, is c/slots
// generations. 1 when nothing is known (a real server: the estimate after
// each level measures it).
func (p sweepPlan) scale(c int) float64 {
	f, b := 1.0, c
	if p.slots > 0 {
		b = min(c, p.slots)
		f = max(1, float64(c)/float64(p.slots))
	}
	if p.step != nil {
		f *= float64(p.step(b)) / float64(p.step(1))
	}
	return f
}

// preflightSpeed is the pre-flight request's time to first token and time
// per output token after it (0, 0 when it streamed fewer than two chunks).
// When the server stamped its sends (the simulator), the time per token is
// the stamps': a busy client may read the short stream in one burst.
func preflightSpeed(r client.Record) (ttft, perToken time.Duration) {
	n := len(r.ChunkAt)
	if n < 2 || r.FirstToken <= r.Start {
		return 0, 0
	}
	first, last := r.ChunkAt[0], r.ChunkAt[n-1]
	if len(r.SendLag) == n {
		first, last = first-r.SendLag[0], last-r.SendLag[n-1]
	}
	out := max(r.OutputTokens(), n)
	return r.FirstToken - r.Start, (last - first) / time.Duration(out-1)
}

// variedTargets reports whether the prompts' output targets differ.
func variedTargets(prompts []client.Prompt, maxTokens int) bool {
	for _, p := range prompts {
		if cmp.Or(p.MaxTokens, maxTokens) != cmp.Or(prompts[0].MaxTokens, maxTokens) {
			return true
		}
	}
	return false
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

// levelTime estimates one run of level c when a request alone on the
// server takes perRequest (scale(c) longer at c, after its think time).
func (p sweepPlan) levelTime(c int, perRequest time.Duration) time.Duration {
	perRequest = time.Duration(float64(perRequest)*p.scale(c)) + p.think
	t := time.Duration(p.rounds(c) * float64(perRequest))
	if p.duration > 0 {
		warm := time.Duration(math.Ceil(float64(p.warmup)/float64(c)) * float64(perRequest))
		if bound := p.duration + warm + perRequest; p.requests == 0 || t > bound {
			t = bound // the measured phase ends at duration; the last requests drain
		}
	}
	return t
}

// alone turns a request's time measured at level c (its think time
// included) into its time alone on the server, the unit of levelTime and
// timeLeft.
func (p sweepPlan) alone(c int, perRequest time.Duration) time.Duration {
	return time.Duration(float64(max(perRequest-p.think, 0)) / p.scale(c))
}

// timeLeft estimates the runs of the sweep after the first done ones, when
// a request alone on the server takes perRequest.
func (p sweepPlan) timeLeft(done int, perRequest time.Duration) time.Duration {
	return p.estimate().timeLeft(p, done, perRequest)
}

// runs is the number of level runs the sweep makes (0 when a search
// chooses them).
func (p sweepPlan) runs() int { return p.estimate().runs(p) }

// assumedPerRequest is one request's time before any level: the
// pre-flight's TTFT plus the mean target at its measured time per token,
// or the mean target at assumedStreamTPS when the pre-flight measured
// nothing.
func (p sweepPlan) assumedPerRequest() time.Duration {
	if p.perToken > 0 {
		return p.ttft + time.Duration(p.tokens*float64(p.perToken))
	}
	return time.Duration(p.tokens / assumedStreamTPS * float64(time.Second))
}

// speedText says where assumedPerRequest comes from.
func (p sweepPlan) speedText(per time.Duration) string {
	if p.perToken > 0 {
		return fmt.Sprintf("at the pre-flight request's %.0f tok/s per stream after a TTFT of %s (%s a request, alone on the server)",
			float64(time.Second)/float64(p.perToken), p.ttft.Round(time.Millisecond), roundDur(per))
	}
	return fmt.Sprintf("at an assumed %d tok/s per stream (%s a request)", assumedStreamTPS, roundDur(per))
}

// upFront is the estimate said before the first level, from the settings
// alone (the chosen mode's estimate).
func (p sweepPlan) upFront() string { return p.estimate().upFront(p) }

// how is the up-front line's closing words on the requests: "(up to 2048
// output tokens each), at an assumed 40 tok/s per stream (51s a
// request); re-estimated after each level".
func (p sweepPlan) how(per time.Duration) string {
	target := fmt.Sprintf("up to %.0f output tokens each", p.tokens)
	if p.varied {
		target = fmt.Sprintf("a mean of %.0f output tokens each", p.tokens)
	}
	return fmt.Sprintf("(%s), %s; re-estimated after each level", target, p.speedText(per))
}

// about says a duration for people: "a few seconds", "about 25 seconds"
// (to 5 s), "about 1 minute", "about 26 minutes", "about 2.5 hours".
func about(d time.Duration) string {
	switch m := d.Minutes(); {
	case d < 10*time.Second:
		return "a few seconds"
	case m < 1:
		return fmt.Sprintf("about %d seconds", int(math.Round(d.Seconds()/5))*5)
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

// runsText counts the sweep's levels in the up-front line: "3 levels", or
// "3 levels × 2 runs" with --repeat.
func (p sweepPlan) runsText(n int, noun string) string {
	if p.repeat > 1 {
		return fmt.Sprintf("%s × %d runs", english.Plural(n, noun), p.repeat)
	}
	return english.Plural(n, noun)
}

// span is a range of counts: "4", or "4–8".
func span(lo, hi float64) string {
	if hi > lo {
		return fmt.Sprintf("%.0f–%.0f", lo, hi)
	}
	return fmt.Sprintf("%.0f", lo)
}
