package mode

import (
	"fmt"
	"math"
	"time"

	"github.com/toksweep/toksweep/internal/english"
	"github.com/toksweep/toksweep/sweep"
)

// AssumedStreamTPS is the per-stream output rate the estimate made before
// any level assumes: about what one stream of a large model on a real GPU
// server gets under load. Each finished level replaces it by a measurement.
const AssumedStreamTPS = 40

// Timing is what the time estimates need from the settings (the time
// estimate's inputs; the chosen mode's Estimate says the sweep's time
// from them).
type Timing struct {
	// Est is the chosen mode's estimates; nil: none (no level known).
	Est      Estimate
	Repeat   int
	Requests int // measured requests per level; 0: the mode's auto count
	Warmup   int
	Duration time.Duration // bound on each level's measured phase; 0: none
	Tokens   float64       // output tokens expected per request: the mean target
	Varied   bool          // the prompts' targets differ: Tokens is a mean, not a bound
	// TTFT and PerToken are the pre-flight request's measured time to
	// first token and time per output token; 0 when it was not measured.
	TTFT, PerToken time.Duration
	// Slots is the server's batch capacity when known (--sim: the
	// preset's max_num_seqs), 0 when not; Step, when known, is its decode
	// step time with b sequences running. See Scale.
	Slots int
	Step  func(b int) time.Duration
	// Think is the mean pause between a session's turns (--think-time),
	// counted before every request (a session's first has none, so it
	// overestimates by one pause a session): the worker idles, whatever C.
	Think time.Duration
}

// Estimate is a mode's time estimates: the line said before the first
// level and, where the mode knows its levels before the sweep, the time
// the runs after the first done ones take, re-estimated as levels end.
type Estimate interface {
	// UpFront is the line said before the first level.
	UpFront(p Timing) string
	// Runs is the number of level runs planned; 0 when a search chooses
	// them (no re-estimate of the sweep's time left).
	Runs(p Timing) int
	// TimeLeft is the time of the runs after the first done, when a
	// request alone on the server takes perRequest.
	TimeLeft(p Timing, done int, perRequest time.Duration) time.Duration
	// PerRequest is one request's time at level k, measured from a run of
	// it that took elapsed (ok false: the run measures none), and Alone
	// its time alone on the server, the unit of TimeLeft.
	PerRequest(p Timing, k sweep.LevelKey, elapsed time.Duration) (at time.Duration, ok bool)
	Alone(p Timing, k sweep.LevelKey, at time.Duration) time.Duration
}

// Estimate is the chosen mode's estimates; none without one.
func (p Timing) Estimate() Estimate {
	if p.Est == nil {
		return none{}
	}
	return p.Est
}

// none is the Estimate of no levels known: nothing to say.
type none struct{}

func (none) UpFront(Timing) string                             { return "" }
func (none) Runs(Timing) int                                   { return 0 }
func (none) TimeLeft(Timing, int, time.Duration) time.Duration { return 0 }
func (none) PerRequest(Timing, sweep.LevelKey, time.Duration) (time.Duration, bool) {
	return 0, false
}
func (none) Alone(_ Timing, _ sweep.LevelKey, at time.Duration) time.Duration { return at }

// Scale is how much longer a request takes at level c than alone, from
// what is known of the server: with its step model, each step of a batch
// of min(c, slots) sequences lasts step(b)/step(1) as long; with its batch
// capacity, a closed loop of c > slots requests keeps c − slots of them
// waiting, so each request's time, its wait included, is c/slots
// generations. 1 when nothing is known (a real server: the estimate after
// each level measures it).
func (p Timing) Scale(c int) float64 {
	f, b := 1.0, c
	if p.Slots > 0 {
		b = min(c, p.Slots)
		f = max(1, float64(c)/float64(p.Slots))
	}
	if p.Step != nil {
		f *= float64(p.Step(b)) / float64(p.Step(1))
	}
	return f
}

// Rounds is how many requests one worker runs at level c, warm-up
// included: a closed-loop level lasts about rounds × one request's time.
func (p Timing) Rounds(c int) float64 {
	n := p.Requests
	if n == 0 {
		n = sweep.AutoRequests(c)
	}
	return math.Ceil(float64(max(n, c)+p.Warmup) / float64(c))
}

// LevelTime estimates one run of level c when a request alone on the
// server takes perRequest (Scale(c) longer at c, after its think time).
func (p Timing) LevelTime(c int, perRequest time.Duration) time.Duration {
	perRequest = time.Duration(float64(perRequest)*p.Scale(c)) + p.Think
	t := time.Duration(p.Rounds(c) * float64(perRequest))
	if p.Duration > 0 {
		warm := time.Duration(math.Ceil(float64(p.Warmup)/float64(c)) * float64(perRequest))
		if bound := p.Duration + warm + perRequest; p.Requests == 0 || t > bound {
			t = bound // the measured phase ends at duration; the last requests drain
		}
	}
	return t
}

// Alone turns a request's time measured at level c (its think time
// included) into its time alone on the server, the unit of LevelTime and
// TimeLeft.
func (p Timing) Alone(c int, perRequest time.Duration) time.Duration {
	return time.Duration(float64(max(perRequest-p.Think, 0)) / p.Scale(c))
}

// TimeLeft estimates the runs of the sweep after the first done ones, when
// a request alone on the server takes perRequest.
func (p Timing) TimeLeft(done int, perRequest time.Duration) time.Duration {
	return p.Estimate().TimeLeft(p, done, perRequest)
}

// Runs is the number of level runs the sweep makes (0 when a search
// chooses them).
func (p Timing) Runs() int { return p.Estimate().Runs(p) }

// AssumedPerRequest is one request's time before any level: the
// pre-flight's TTFT plus the mean target at its measured time per token,
// or the mean target at AssumedStreamTPS when the pre-flight measured
// nothing.
func (p Timing) AssumedPerRequest() time.Duration {
	if p.PerToken > 0 {
		return p.TTFT + time.Duration(p.Tokens*float64(p.PerToken))
	}
	return time.Duration(p.Tokens / AssumedStreamTPS * float64(time.Second))
}

// SpeedText says where AssumedPerRequest comes from.
func (p Timing) SpeedText(per time.Duration) string {
	if p.PerToken > 0 {
		return fmt.Sprintf("at the pre-flight request's %.0f tok/s per stream after a TTFT of %s (%s a request, alone on the server)",
			float64(time.Second)/float64(p.PerToken), p.TTFT.Round(time.Millisecond), RoundDur(per))
	}
	return fmt.Sprintf("at an assumed %d tok/s per stream (%s a request)", AssumedStreamTPS, RoundDur(per))
}

// UpFront is the estimate said before the first level, from the settings
// Alone (the chosen mode's estimate).
func (p Timing) UpFront() string { return p.Estimate().UpFront(p) }

// How is the up-front line's closing words on the requests: "(up to 2048
// output tokens each), at an assumed 40 tok/s per stream (51s a
// request); re-estimated after each level".
func (p Timing) How(per time.Duration) string {
	target := fmt.Sprintf("up to %.0f output tokens each", p.Tokens)
	if p.Varied {
		target = fmt.Sprintf("a mean of %.0f output tokens each", p.Tokens)
	}
	return fmt.Sprintf("(%s), %s; re-estimated after each level", target, p.SpeedText(per))
}

// About says a duration for people: "a few seconds", "about 25 seconds"
// (to 5 s), "about 1 minute", "about 26 minutes", "about 2.5 hours".
func About(d time.Duration) string {
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

// RoundDur is d to the second (to 0.1s below 10s).
func RoundDur(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

// RunsText counts the sweep's levels in the up-front line: "3 levels", or
// "3 levels × 2 runs" with --repeat.
func (p Timing) RunsText(n int, noun string) string {
	if p.Repeat > 1 {
		return fmt.Sprintf("%s × %d runs", english.Plural(n, noun), p.Repeat)
	}
	return english.Plural(n, noun)
}

// Span is a range of counts: "4", or "4–8".
func Span(lo, hi float64) string {
	if hi > lo {
		return fmt.Sprintf("%.0f–%.0f", lo, hi)
	}
	return fmt.Sprintf("%.0f", lo)
}
