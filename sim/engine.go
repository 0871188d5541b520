package sim

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// maxLag is how late a step may end before the scheduler gives up catching
// up. Below it, a stalled host (a GC pause, a busy CPU) costs nothing in
// the long run: the following steps start at their modelled deadlines, which
// are already due, so the sim keeps its modelled timeline and the stall shows
// as late, bunched tokens rather than as a slower model. Beyond it (a
// suspended process, say), the next step starts now.
const maxLag = time.Second

// lateSamples is how many recent step lateness samples the engine keeps.
const lateSamples = 8192

var (
	errQueueFull = errors.New("sim: waiting queue is full")
	errClosed    = errors.New("sim: server is closed")
)

// job is what a handler asks the engine to generate.
type job struct {
	promptTokens int
	target       int    // tokens to generate
	finish       string // finish_reason once target is reached
}

// seq is one request in the engine. The scheduler goroutine publishes
// progress under mu and pokes notify (capacity 1, never blocking), so a slow
// client never stalls the batch: its handler just finds several chunks
// waiting when it wakes.
type seq struct {
	job
	arrived   time.Time
	scheduled time.Time // admitted to the batch (scheduler-owned)
	aborted   atomic.Bool
	notify    chan struct{}

	produced int // tokens generated; scheduler-owned copy of generated

	mu        sync.Mutex
	generated int
	done      bool
}

// progress reports the tokens generated so far and whether the sequence has
// finished.
func (s *seq) progress() (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.generated, s.done
}

// engine is the continuous-batching model. Handlers submit and abort; one
// scheduler goroutine owns the running batch and steps it in real time.
type engine struct {
	cfg Config
	// Step costs in nanoseconds, already multiplied by TimeScale.
	baseNs, perSeqNs, perCtxNs, prefNs float64

	met    *metrics
	wake   chan struct{} // capacity 1: "look at the queue"
	done   chan struct{} // closed by close
	exited chan struct{} // closed when run returns

	// Owned by the scheduler goroutine.
	running []*seq
	stepped []*seq     // scratch: the sequences emit publishes to
	rng     *rand.Rand // jitter
	pace    *pacer

	nRunning atomic.Int64 // len(running), for handlers and Stats

	mu      sync.Mutex // guards waiting and closed
	waiting []*seq
	closed  bool

	lateMu sync.Mutex // guards late and lateN
	late   []time.Duration
	lateN  int
}

func newEngine(cfg Config, met *metrics) *engine {
	s := cfg.TimeScale
	e := &engine{
		cfg:      cfg,
		baseNs:   float64(cfg.DecodeBase) * s,
		perSeqNs: float64(cfg.DecodePerSeq) * s,
		perCtxNs: float64(cfg.DecodePerCtxToken) * s,
		prefNs:   1e9 / cfg.PrefillTokensPerSec * s,
		met:      met,
		wake:     make(chan struct{}, 1),
		done:     make(chan struct{}),
		exited:   make(chan struct{}),
		rng:      rand.New(rand.NewPCG(uint64(cfg.Seed), 0x6a1773)),
		late:     make([]time.Duration, lateSamples),
	}
	e.pace = newPacer(e.done)
	go e.run()
	return e
}

// close stops the scheduler and waits for it to exit.
func (e *engine) close() {
	e.mu.Lock()
	if !e.closed {
		e.closed = true
		close(e.done)
	}
	e.mu.Unlock()
	<-e.exited
}

// submit queues a job. It fails with errQueueFull when QueueLimit429
// requests already wait beyond the free batch slots.
func (e *engine) submit(j job) (*seq, error) {
	sq := &seq{job: j, arrived: time.Now(), notify: make(chan struct{}, 1)}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil, errClosed
	}
	free := max(0, e.cfg.MaxNumSeqs-int(e.nRunning.Load()))
	if lim := e.cfg.QueueLimit429; lim > 0 && len(e.waiting)-free >= lim {
		e.mu.Unlock()
		return nil, errQueueFull
	}
	e.waiting = append(e.waiting, sq)
	e.mu.Unlock()
	e.poke()
	return sq, nil
}

// abort takes a sequence out of the engine: at once if it still waits, at
// the start of the next step if it runs. It is safe to call more than once
// and after the sequence finished.
func (e *engine) abort(sq *seq) {
	if sq.aborted.Swap(true) {
		return
	}
	if _, done := sq.progress(); done {
		return
	}
	e.mu.Lock()
	if i := slices.Index(e.waiting, sq); i >= 0 {
		e.waiting = slices.Delete(e.waiting, i, i+1)
	}
	e.mu.Unlock()
	e.met.aborted(1)
	e.poke()
}

func (e *engine) isClosed() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.closed
}

func (e *engine) poke() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

func (e *engine) waitingLen() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.waiting)
}

// run is the scheduler loop: admit, size the step, wait for its deadline,
// emit one chunk per running sequence.
func (e *engine) run() {
	defer close(e.exited)
	defer e.pace.stop()
	var start time.Time
	for {
		e.dropAborted()
		if len(e.running) == 0 {
			if !e.waitForWork() {
				return
			}
			start = time.Now()
		}
		prefill := e.admit(start)
		if len(e.running) == 0 {
			continue
		}
		deadline := start.Add(e.stepDuration(prefill))
		if !e.pace.waitUntil(deadline) {
			return
		}
		now := time.Now()
		e.recordLate(now.Sub(deadline))
		e.emit(now)
		start = deadline
		if now.Sub(deadline) > maxLag {
			start = now
		}
	}
}

// waitForWork blocks until a request waits, or reports false when the
// engine closes.
func (e *engine) waitForWork() bool {
	for {
		if e.waitingLen() > 0 {
			return true
		}
		select {
		case <-e.wake:
		case <-e.done:
			return false
		}
	}
}

// dropAborted removes aborted sequences from the running batch.
func (e *engine) dropAborted() {
	e.running = slices.DeleteFunc(e.running, func(sq *seq) bool { return sq.aborted.Load() })
	e.nRunning.Store(int64(len(e.running)))
}

// admit moves waiting requests into the batch while it has room and returns
// the time their prefill adds to this step, in (scaled) nanoseconds.
func (e *engine) admit(now time.Time) float64 {
	e.mu.Lock()
	n := min(len(e.waiting), e.cfg.MaxNumSeqs-len(e.running))
	admitted := slices.Clone(e.waiting[:max(n, 0)])
	e.waiting = slices.Delete(e.waiting, 0, max(n, 0))
	e.running = append(e.running, admitted...)
	e.nRunning.Store(int64(len(e.running)))
	e.mu.Unlock()

	prefill, prompt := 0.0, 0
	for _, sq := range admitted {
		prefill += float64(sq.promptTokens) * e.prefNs
		prompt += sq.promptTokens
		sq.scheduled = now
		e.met.admitted(now.Sub(sq.arrived))
	}
	e.met.addPrompt(prompt)
	return prefill
}

// contextTokens is the KV footprint of the batch: prompts plus tokens
// generated so far.
func (e *engine) contextTokens() int {
	ctx := 0
	for _, sq := range e.running {
		ctx += sq.promptTokens + sq.produced
	}
	return ctx
}

// stepDuration is the modelled length of the step about to run.
func (e *engine) stepDuration(prefillNs float64) time.Duration {
	ctx := e.contextTokens()
	e.met.setKV(ctx)
	ns := prefillNs + e.baseNs + e.perSeqNs*float64(len(e.running)) + e.perCtxNs*float64(ctx)
	if j := e.cfg.Jitter; j > 0 {
		ns *= math.Max(0.1, 1+j*e.rng.NormFloat64())
	}
	return time.Duration(ns)
}

// emit ends a step: every running sequence gets its next chunk, and those
// that reach their target leave the batch. Metrics and the batch are
// updated before any handler hears of the chunk, so a client that has its
// reply sees them already counted.
func (e *engine) emit(now time.Time) {
	k, tokens := e.cfg.TokensPerChunk, 0
	e.stepped = e.stepped[:0]
	for _, sq := range e.running {
		if sq.aborted.Load() {
			continue // its handler is gone; dropped below
		}
		if sq.produced == 0 {
			e.met.firstToken(now.Sub(sq.arrived), now.Sub(sq.scheduled))
		}
		n := min(k, sq.target-sq.produced)
		sq.produced += n
		tokens += n
		if sq.produced >= sq.target {
			e.met.finished(sq.finish)
		}
		e.stepped = append(e.stepped, sq)
	}
	e.met.addGenerated(tokens)
	e.running = slices.DeleteFunc(e.running, func(sq *seq) bool {
		return sq.produced >= sq.target || sq.aborted.Load()
	})
	e.nRunning.Store(int64(len(e.running)))
	e.met.setKV(e.contextTokens()) // finished sequences free their KV
	for _, sq := range e.stepped {
		sq.mu.Lock()
		sq.generated, sq.done = sq.produced, sq.produced >= sq.target
		sq.mu.Unlock()
		select {
		case sq.notify <- struct{}{}:
		default:
		}
	}
	clear(e.stepped) // do not keep finished sequences alive until the next step
}

// recordLate keeps how late a step ended, for the pacing tests.
func (e *engine) recordLate(d time.Duration) {
	e.lateMu.Lock()
	e.late[e.lateN%lateSamples] = d
	e.lateN++
	e.lateMu.Unlock()
}

// lateness returns the kept step lateness samples, oldest first.
func (e *engine) lateness() []time.Duration {
	e.lateMu.Lock()
	defer e.lateMu.Unlock()
	if e.lateN <= lateSamples {
		return slices.Clone(e.late[:e.lateN])
	}
	i := e.lateN % lateSamples
	return append(slices.Clone(e.late[i:]), e.late[:i]...)
}
