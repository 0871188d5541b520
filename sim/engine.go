package sim

import (
	"cmp"
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
	hashes       []uint64 // chained hashes of its full blocks (prompt, then reply); nil without prefix caching
	target       int      // tokens to generate
	finish       string   // finish_reason once target is reached
	priority     int      // lower is scheduled first (vLLM's request priority); 0 by default
	adapter      int      // 1 + its index in Config.Adapters; 0: the base model
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

	// Scheduler-owned.
	produced int       // tokens generated; the scheduler's copy of generated
	computed int       // tokens whose KV is in blocks (prompt, then generated)
	blocks   []int32   // KV blocks held while running
	nHashed  int       // leading prompt blocks registered in the prefix cache
	chunk    int       // prefill tokens computed in the current step
	emitN    int       // tokens emitted at the end of the current step
	accepted int       // draft tokens accepted in the current step; -1: no draft verified
	hit      int       // prompt tokens the prefix cache served at first admission
	firstAt  time.Time // its first token was emitted (the TTFT's end)

	mu        sync.Mutex
	generated int
	done      bool
	cached    int // hit, published with the first token
}

// progress reports the tokens generated so far and whether the sequence has
// finished.
func (s *seq) progress() (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.generated, s.done
}

// cachedTokens is the number of prompt tokens the prefix cache served, known
// once the first token is out.
func (s *seq) cachedTokens() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cached
}

// length is the tokens the sequence holds: its prompt and its output so far.
func (s *seq) length() int { return s.promptTokens + s.produced }

// engine is the continuous-batching model. Handlers submit and abort; one
// scheduler goroutine owns the running batch and steps it in real time.
type engine struct {
	cfg Config
	// Step costs in nanoseconds, already multiplied by TimeScale.
	baseNs, perSeqNs, perCtxNs, prefNs, prefBaseNs float64
	// cost is each adapter's Cost, by job.adapter (cost[0], the base
	// model's, is 1); inStep marks the adapters the step being sized runs.
	cost   []float64
	inStep []bool

	met    *metrics
	wake   chan struct{} // capacity 1: "look at the queue"
	done   chan struct{} // closed by close
	exited chan struct{} // closed when run returns

	// Owned by the scheduler goroutine.
	running []*seq
	stepped []*seq     // the sequences the current step computes
	pool    *blockPool // the KV cache
	budget  int        // tokens per step (MaxNumBatchedTokens; unlimited when 0)
	rng     *rand.Rand // jitter
	drafter *rand.Rand // speculative decoding's acceptances
	pace    *pacer
	trace   func(stepTrace) // tests: called at the end of every step

	nRunning atomic.Int64 // len(running), for handlers and Stats

	mu      sync.Mutex // guards waiting and closed
	waiting []*seq
	closed  bool

	lateMu sync.Mutex // guards late and lateN
	late   []time.Duration
	lateN  int
}

func newEngine(cfg Config, met *metrics) *engine { return startEngine(cfg, met, nil) }

// startEngine is newEngine with a trace hook for tests.
func startEngine(cfg Config, met *metrics, trace func(stepTrace)) *engine {
	e := makeEngine(cfg, met, trace)
	go e.run()
	return e
}

// makeEngine is an engine whose scheduler has not started.
func makeEngine(cfg Config, met *metrics, trace func(stepTrace)) *engine {
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
		drafter:  rand.New(rand.NewPCG(uint64(cfg.Seed), 0xd4af7)),
		late:     make([]time.Duration, lateSamples),
		pool:     newBlockPool(cfg.KVCacheTokens, !cfg.NoPrefixCaching),
		budget:   cmp.Or(cfg.MaxNumBatchedTokens, math.MaxInt),
		trace:    trace,
	}
	e.prefBaseNs = float64(cfg.PrefillBase) * s // PrefillBase, scaled alike
	e.cost = []float64{1}
	for _, a := range cfg.Adapters {
		e.cost = append(e.cost, a.Cost)
	}
	e.inStep = make([]bool, len(e.cost))
	e.pace = newPacer(e.done)
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
	e.enqueue(sq)
	e.mu.Unlock()
	e.poke()
	return sq, nil
}

// enqueue puts a new request in the waiting queue, which is kept in order
// of priority (lower first) and of arrival within one: after every request
// of its priority or a lower value. With one priority, it appends. The
// caller holds e.mu.
func (e *engine) enqueue(sq *seq) {
	i := len(e.waiting)
	for i > 0 && e.waiting[i-1].priority > sq.priority {
		i--
	}
	e.waiting = slices.Insert(e.waiting, i, sq)
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
		e.schedule(start)
		if len(e.stepped) == 0 {
			continue // the queue emptied (aborts) before anything ran
		}
		deadline := start.Add(e.stepDuration())
		if !e.pace.waitUntil(deadline) {
			return
		}
		now := time.Now()
		e.recordLate(now.Sub(deadline))
		e.emit(now, start, deadline)
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
func (e *engine) dropAborted() { e.leave(func(sq *seq) bool { return sq.aborted.Load() }) }

// leave removes the running sequences gone says are gone, freeing their
// KV blocks.
func (e *engine) leave(gone func(*seq) bool) {
	e.running = slices.DeleteFunc(e.running, func(sq *seq) bool {
		if !gone(sq) {
			return false
		}
		e.pool.release(sq.blocks)
		sq.blocks = nil
		return true
	})
	e.nRunning.Store(int64(len(e.running)))
	e.met.setKV(e.pool.usage())
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
