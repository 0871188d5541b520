package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/internal/english"
	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/sweep"
)

// Line reports a sweep's progress on stderr. On a terminal it redraws
// one live line (level, requests done of planned, tokens streamed so far and
// their rate, errors, and the time left for the level and the sweep);
// elsewhere (CI, pipes, files) it writes only one plain line per finished
// level and the re-estimated time left, and never a carriage return.
type Line struct {
	w    io.Writer
	live bool
	plan mode.Timing
	// streamed is the client's live count of token chunks (client.Config.
	// Streamed): unlike finished requests, it moves from the first token.
	streamed *atomic.Int64

	mu      sync.Mutex // guards the fields below and writes to w
	c, rep  int
	key     sweep.LevelKey // the level's, as its mode names it (starting)
	planned int
	started time.Time
	run     int           // runs started so far (the current one included)
	perReq  time.Duration // one request's time: assumed, then measured
	ticker  *time.Ticker
	quit    chan struct{}
	exited  chan struct{} // closed when the redraw goroutine returns

	done, failed atomic.Int64
}

// New is the progress of a sweep on w, estimated from plan; streamed is
// the client's live count of token chunks (nil: none counted).
func New(w io.Writer, plan mode.Timing, streamed *atomic.Int64) *Line {
	if streamed == nil {
		streamed = new(atomic.Int64)
	}
	return &Line{w: w, live: IsTerminal(w), plan: plan, streamed: streamed, perReq: plan.AssumedPerRequest()}
}

// Line is the sweep's Observer of the progress.
var _ sweep.Observer = (*Line)(nil)

// LevelStarted is sweep.Observer's: a level starts; its key's mode names
// it in the lines ("C=4", "rate=16/s").
func (p *Line) LevelStarted(l sweep.Level, planned int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.c, p.rep, p.planned, p.started = l.Concurrency, l.Repeat, planned, time.Now()
	p.key = l.Key()
	p.run++
	p.done.Store(0)
	p.failed.Store(0)
	p.streamed.Store(0)
	if p.live && p.ticker == nil {
		p.ticker, p.quit, p.exited = time.NewTicker(Every), make(chan struct{}), make(chan struct{})
		go p.redraw(p.ticker.C, p.quit, p.exited)
	}
}

// RequestDone is sweep.Observer's: it runs on worker goroutines.
func (p *Line) RequestDone(r *client.Record) {
	if r.Warmup {
		return // planned counts measured requests only
	}
	p.done.Add(1)
	if !r.OK() {
		p.failed.Add(1)
	}
}

// TimerLate is sweep.Observer's: the line does not show the timer probe.
func (p *Line) TimerLate(time.Duration) {}

func (p *Line) redraw(tick <-chan time.Time, quit <-chan struct{}, exited chan<- struct{}) {
	defer close(exited)
	for {
		select {
		case <-quit:
			return
		case <-tick:
			p.mu.Lock()
			select {
			case <-quit: // stopped while waiting for the lock: draw nothing
			default:
				fmt.Fprintf(p.w, "\r\033[K%s", p.liveLine())
			}
			p.mu.Unlock()
		}
	}
}

// liveLine is the terminal status line; p.mu must be held.
func (p *Line) liveLine() string {
	planned := "?"
	if p.planned > 0 {
		planned = fmt.Sprint(p.planned)
	}
	elapsed := time.Since(p.started)
	tokens := p.streamed.Load()
	rate := float64(tokens) / max(elapsed.Seconds(), 1e-9)
	var b strings.Builder
	fmt.Fprintf(&b, "level %s", p.key.Name())
	if n := p.plan.Runs(); n > 0 {
		fmt.Fprintf(&b, " (run %d of %d)", p.run, n)
	}
	fmt.Fprintf(&b, ": %d/%s requests, %d tokens streamed, %.0f tok/s, %d errors, %s",
		p.done.Load(), planned, tokens, rate, p.failed.Load(), elapsed.Round(time.Second))
	if left, ok := p.levelLeft(elapsed, tokens); ok {
		fmt.Fprintf(&b, "; level ~%s left", mode.RoundDur(left).Round(time.Second))
		if p.run < p.plan.Runs() {
			// The level so far measures a request's time better than the
			// last level or the assumption did.
			est := p.plan.Estimate()
			if per, ok := est.PerRequest(p.plan, p.key, elapsed+left); ok {
				fmt.Fprintf(&b, ", sweep ~%s left", (left + p.plan.TimeLeft(p.run, est.Alone(p.plan, p.key, per))).Round(time.Second))
			}
		}
	}
	return b.String()
}

// levelLeft estimates the time left in the current level from how far it
// got: the larger of its share of requests finished and of tokens streamed
// (of planned requests × the mean output target), or of --duration.
func (p *Line) levelLeft(elapsed time.Duration, tokens int64) (time.Duration, bool) {
	var f float64
	switch {
	case p.planned > 0:
		f = float64(p.done.Load()) / float64(p.planned)
		if want := float64(p.planned+p.plan.Warmup) * p.plan.Tokens; want > 0 {
			f = max(f, float64(tokens)/want)
		}
	case p.plan.Duration > 0:
		f = elapsed.Seconds() / p.plan.Duration.Seconds()
	}
	if !(f > 0) {
		return 0, false
	}
	f = min(f, 1)
	return time.Duration(float64(elapsed) * (1 - f) / f), true
}

// Say prints line (a finished level's summary, a warning) on a line of
// its own, clearing the live line first.
func (p *Line) Say(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.live {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintln(p.w, line)
}

// LevelEnded prints the finished level's summary, then, when the sweep
// goes on (more is set: the level was not interrupted or aborted),
// re-estimates the rest of it from the level's measured time per request.
// offered is the rate the level's plan offered (report.LevelStats.
// OfferedRPS; 0: none, a closed loop): the line names an open-loop level
// by its mode's Words.Load, "18.2 req/s offered (nominal 16)". A level
// that measured no time per request (an open loop that ended within its
// arrivals' time, whose last request's time is not seen: 0) says none:
// the estimate keeps the last one measured, or the assumed one.
func (p *Line) LevelEnded(line string, offered float64, more bool) {
	p.mu.Lock()
	est := p.plan.Estimate()
	measured := ""
	if per, ok := est.PerRequest(p.plan, p.key, time.Since(p.started)); ok && per > 0 && !p.started.IsZero() {
		p.perReq = per
		measured = fmt.Sprintf(" (measured %s a request at %s)", mode.RoundDur(per), p.key.Said(offered))
	}
	left, run := p.plan.TimeLeft(p.run, est.Alone(p.plan, p.key, p.perReq)), p.run
	p.mu.Unlock()
	p.Say(line)
	if n := p.plan.Runs(); more && n > run {
		p.Say(fmt.Sprintf("toksweep: %s left for %s%s",
			mode.About(left), english.Plural(n-run, "more level run"), measured))
	}
}

// Stop ends the live line, and returns once nothing more will be drawn.
func (p *Line) Stop() {
	p.mu.Lock()
	if p.ticker == nil {
		p.mu.Unlock()
		return
	}
	p.ticker.Stop()
	close(p.quit)
	p.ticker = nil
	fmt.Fprint(p.w, "\r\033[K")
	exited := p.exited
	p.mu.Unlock()
	<-exited
}
