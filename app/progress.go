package app

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"

	"github.com/toksweep/toksweep/client"
)

// progressEvery is how often the live line is redrawn on a terminal.
const progressEvery = 250 * time.Millisecond

// progress reports a sweep's progress on stderr. On a terminal it redraws
// one live line (level, requests done of planned, output tok/s of the
// finished requests, errors so far); elsewhere (CI, pipes, files) it writes
// only one plain line per finished level, and never a carriage return.
type progress struct {
	w    io.Writer
	live bool

	mu      sync.Mutex // guards the fields below and writes to w
	c, rep  int
	planned int
	started time.Time
	ticker  *time.Ticker
	quit    chan struct{}
	exited  chan struct{} // closed when the redraw goroutine returns

	done, failed, tokens atomic.Int64
}

func newProgress(w io.Writer) *progress {
	return &progress{w: w, live: isTerminal(w)}
}

func isTerminal(w io.Writer) bool {
	if s, ok := w.(*scrubWriter); ok {
		w = s.w
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// start is sweep.Config.Started.
func (p *progress) start(c, rep, planned int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.c, p.rep, p.planned, p.started = c, rep, planned, time.Now()
	p.done.Store(0)
	p.failed.Store(0)
	p.tokens.Store(0)
	if p.live && p.ticker == nil {
		p.ticker, p.quit, p.exited = time.NewTicker(progressEvery), make(chan struct{}), make(chan struct{})
		go p.redraw(p.ticker.C, p.quit, p.exited)
	}
}

// observe is sweep.Config.Observe: it runs on worker goroutines.
func (p *progress) observe(r client.Record) {
	if r.Warmup {
		return // planned counts measured requests only
	}
	p.done.Add(1)
	if !r.OK() {
		p.failed.Add(1)
	}
	p.tokens.Add(int64(r.OutputTokens()))
}

func (p *progress) redraw(tick <-chan time.Time, quit <-chan struct{}, exited chan<- struct{}) {
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
func (p *progress) liveLine() string {
	planned := "?"
	if p.planned > 0 {
		planned = fmt.Sprint(p.planned)
	}
	elapsed := time.Since(p.started).Seconds()
	rate := float64(p.tokens.Load()) / max(elapsed, 1e-9)
	return fmt.Sprintf("level C=%d: %d/%s requests, %.0f output tok/s (finished requests), %d errors, %.0fs",
		p.c, p.done.Load(), planned, rate, p.failed.Load(), elapsed)
}

// levelDone prints the finished level's one-line summary.
func (p *progress) levelDone(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.live {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintln(p.w, line)
}

// stop ends the live line, and returns once nothing more will be drawn.
func (p *progress) stop() {
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
