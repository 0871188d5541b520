package sweep

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/toksweep/toksweep/client"
)

// Doer issues one request and reports it as a record. *client.Client is the
// production Doer; Now must be the clock the records' instants are on.
type Doer interface {
	Do(ctx context.Context, p client.Prompt) client.Record
	Now() time.Duration
}

var (
	_ Doer     = (*client.Client)(nil)
	_ Warmer   = (*client.Client)(nil)
	_ Preparer = (*client.Client)(nil)
)

// Preparer is a Doer that can build a request ahead of its send, so that
// an open loop's request is built before its instant and only its round
// trip follows the instant: Send(ctx, Prepare(ctx, p)) must be Do(ctx, p).
// *client.Client is one; the sweep uses it where the Doer has it.
type Preparer interface {
	Prepare(ctx context.Context, p client.Prompt) *client.Prepared
	Send(ctx context.Context, pr *client.Prepared) client.Record
}

// Warmer is a Doer that can open connections ahead of a level, so that no
// measured request's TTFT includes a TCP or TLS handshake. The sweep opens
// C connections before each level's clock starts; a failure there is not an
// error (the level's requests will meet and record the same problem).
type Warmer interface {
	WarmConns(ctx context.Context, n int) error
}

// Config says which levels to run and how long each lasts.
type Config struct {
	// Load is what the chosen mode built (its package's Load): the
	// sweep's levels and their arrivals.
	Load Load
	// Requests is the number of measured requests per level. Zero means
	// AutoRequests(C). A level always gets at least C measured requests, so
	// that every worker has one.
	Requests int
	// Duration bounds the measured phase of each level, counted from the
	// first measured request's start; zero means no bound. When both
	// Requests and Duration are set, whichever is reached first ends the level.
	// At Duration no new request starts; the requests in flight then have
	// DrainTimeout to finish, after which they are canceled and recorded as
	// client.Canceled (their Error says the drain ran out).
	Duration time.Duration
	Warmup   int // warm-up requests per level, sent first and not measured
	Repeat   int // runs of each level; zero means 1
	// Prompt returns the prompt of ticket seq of a level (0, 1, …, the
	// warm-up tickets first). It is called once per request, from the
	// senders' goroutines, so it must be safe for concurrent use. Cycle
	// sends a fixed set in order.
	Prompt func(seq int) client.Prompt
	// Classes, when set, draws each request into a traffic class, whose
	// client.Variant it is sent with and whose name its record carries.
	Classes *Classes
	// Observer, when set, is told as levels start, requests finish and
	// the timer probe ticks (live views; Observers combines several).
	Observer Observer
	// Sink, when set, takes every finished request's record (before
	// Observer) and gives the level's records back at its end, which the
	// sweep hands over as Level.Source (Level.Records stays nil); a sink
	// that writes them out (rundir.RunDir) keeps a level's memory from
	// growing with its requests and tokens. Nil: the sweep keeps them in
	// memory and hands them over in Level.Records (MemorySink).
	Sink RecordSink
	// Server, when set, samples the server's own metrics during each level
	// (see ServerSampler); they end up in Level.Server.
	Server ServerSampler
	// DrainTimeout bounds the drain after Duration; zero means
	// DefaultDrainTimeout. It has no effect without Duration.
	DrainTimeout time.Duration

	// BeforeLevel, when set, is called before each level starts, with the
	// level's index k in run order (repeats counted) and its concurrency c;
	// it returns how many workers this process runs (a shard's part of c)
	// and may wait for the level's start instant. An error stops the sweep.
	// Sharded runs use it (app/shard.go); nil runs c workers at once.
	BeforeLevel func(ctx context.Context, k, c int) (workers int, err error)
}

// Cycle is a Config.Prompt that sends ticket seq prompts[seq % len]; nil
// when prompts is empty.
func Cycle(prompts []client.Prompt) func(seq int) client.Prompt {
	if len(prompts) == 0 {
		return nil
	}
	return func(seq int) client.Prompt { return prompts[seq%len(prompts)] }
}

// DefaultDrainTimeout is the drain after --duration when none is given.
const DefaultDrainTimeout = 30 * time.Second

// errDrained is the cause of a level's request context when the drain after
// its Duration ran out.
var errDrained = errors.New("the level's drain ran out")

// DrainedError is the Error of a request canceled at the end of the drain.
const DrainedError = "request canceled: still in flight when the drain after --duration ran out (--drain-timeout)"

// AutoRequests is the default number of measured requests at concurrency c:
// four per worker, and at least eight, so that percentiles rest on more
// than a handful of samples even at C=1.
func AutoRequests(c int) int { return max(4*c, 8) }

// AbortError reports that a level was stopped because every request failed
// with the same client-side error (a 4xx other than 429).
type AbortError struct {
	Key         LevelKey // the level's key
	Concurrency int
	Rate        float64 // the open-loop level's offered rate; 0 in a closed loop
	Class       client.ErrorClass
	Message     string // the first failing request's error
}

func (e *AbortError) Error() string {
	k := e.Key
	if k == (LevelKey{}) {
		k = LevelKey{Mode: ClosedMode, Concurrency: e.Concurrency}
	}
	return fmt.Sprintf("every request at %s failed (%s): %s", k.At(), e.Class, e.Message)
}

// Run runs every level in order and calls onLevel with each level (its
// records, or Config.Sink's Source of them) as soon as the level ends,
// including a level cut short by cancellation, so that the caller can flush
// it to disk. It returns context.Cause(ctx) when canceled, an
// *AbortError when a level was aborted, onLevel's error if it fails, and nil
// otherwise. Failed requests are never an error here.
func Run(ctx context.Context, cfg Config, d Doer, onLevel func(Level) error) error {
	load := cfg.Load
	if load == nil {
		return errors.New("sweep: no load (Config.Load)")
	}
	if p, ok := load.(Prompter); cfg.Prompt == nil && !(ok && p.OwnPrompts()) {
		return errors.New("sweep: no prompts")
	}
	repeat := max(cfg.Repeat, 1)
	next := load.Keys()
	k := 0
	runs := map[LevelKey]int{} // the runs of each key so far
	for spec, ok := next(); ok; spec, ok = next() {
		// A key handed out again (a steered search's calibration level
		// measured anew) numbers its runs (Level.Repeat) on from its
		// earlier ones: its records stay apart from theirs on disk, and
		// its arrivals and prompt salt are drawn anew.
		first := runs[spec]
		runs[spec] += repeat
		for r := first; r < first+repeat; r++ {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			workers, err := beforeLevel(ctx, cfg, k, spec.Concurrency)
			if err != nil {
				return err
			}
			k++
			lspec := spec
			lspec.Concurrency = workers // a shard runs its part of C
			lvl, abort := runLevel(ctx, cfg, load, d, lspec, r)
			if err := onLevel(lvl); err != nil {
				return err
			}
			if abort != nil {
				return abort
			}
			if lvl.EndReason == Canceled {
				return context.Cause(ctx)
			}
		}
	}
	return nil
}

// beforeLevel runs cfg.BeforeLevel, if any: the number of workers of
// level k at concurrency c.
func beforeLevel(ctx context.Context, cfg Config, k, c int) (int, error) {
	if cfg.BeforeLevel == nil {
		return c, nil
	}
	return cfg.BeforeLevel(ctx, k, c)
}

// measuredCount is the planned number of measured requests of a level
// (Unlimited: bounded by Duration only).
func measuredCount(cfg Config, load Load, spec LevelKey) int {
	if cfg.Requests <= 0 && cfg.Duration > 0 {
		return Unlimited
	}
	return load.Measured(&cfg, spec)
}

// runLevel runs one level to its end and returns its records.
func runLevel(ctx context.Context, cfg Config, load Load, d Doer, spec LevelKey, repeat int) (Level, *AbortError) {
	c := spec.Concurrency
	mode := spec.mode()
	measured := measuredCount(cfg, load, spec)
	arr, err := load.Arrivals(&cfg, spec, measured, repeat)
	if err != nil {
		// A plan that cannot be drawn is a bad Config: nothing is sent.
		return Level{Mode: spec.Mode, Concurrency: c, Rate: spec.Load, Repeat: repeat, EndReason: Aborted},
			&AbortError{Key: spec, Concurrency: c, Rate: spec.Load, Message: err.Error()}
	}
	tk := newTickets(cfg.Warmup, measured, cfg.Duration, d.Now)
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rctx, stopDrain := withDrain(lctx, cfg, tk)
	defer stopDrain()
	obs := observer(cfg)
	planned := measured
	if measured == Unlimited {
		planned = 0
	}
	obs.LevelStarted(Level{Mode: spec.Mode, Concurrency: c, Rate: spec.Load, Repeat: repeat}, planned)
	ab := newAborter(load.AbortAfter(spec))

	if w, ok := d.(Warmer); ok {
		_ = w.WarmConns(lctx, load.WarmConns(spec))
	}

	stopServer := cfg.Server.start(ctx, c, tk.ended)
	mon := startMonitor(obs.TimerLate)
	start := d.Now()
	s := &sender{cfg: cfg, d: d, obs: obs, tk: tk, ab: ab, cancel: cancel, spec: spec, repeat: repeat, mark: mode.Marks(), prevEnd: map[int]time.Duration{}}
	s.newSink()
	if mode.Open() {
		s.slots = newSlots(c)
	}
	arr.Arrive(rctx, s)
	end := d.Now()

	lvl := Level{Mode: spec.Mode, Concurrency: c, Rate: spec.Load, Repeat: repeat, Start: start, End: end}
	lvl.Server = stopServer()
	s.handOver(&lvl)
	lvl.Health = mon.stop()
	lvl.Health.IssueLagMax = s.lag
	lvl.EndReason = Completed
	switch {
	case ctx.Err() != nil:
		lvl.EndReason = Canceled
	case ab.tripped():
		lvl.EndReason = Aborted
		e := ab.err(c)
		e.Key, e.Rate = spec, spec.Load
		return lvl, e
	case tk.expired(), errors.Is(context.Cause(rctx), errDrained):
		lvl.EndReason = Deadline
	}
	return lvl, nil
}

// withDrain returns the context a level's requests run under: with a
// Duration, it is canceled (cause errDrained) DrainTimeout after the
// deadline, by a timer that the first measured ticket arms. The returned
// func disarms it.
func withDrain(lctx context.Context, cfg Config, tk *tickets) (context.Context, func()) {
	rctx, drained := context.WithCancelCause(lctx)
	if cfg.Duration > 0 {
		tk.cut = func() { drained(errDrained) }
		tk.drain = cmp.Or(cfg.DrainTimeout, DefaultDrainTimeout)
	}
	return rctx, func() { tk.stop(); drained(nil) }
}

// sender is the Sender of one level: it claims tickets, issues requests
// through the Doer and keeps their records.
type sender struct {
	cfg    Config
	d      Doer
	obs    Observer
	tk     *tickets
	ab     *aborter
	cancel func()
	spec   LevelKey
	repeat int
	mark   bool       // the mode marks its records (Mode.Marks)
	slots  slots      // an open loop's cap on requests in flight (nil: none)
	sink   RecordSink // Config.Sink, else held
	held   *MemorySink

	mu      sync.Mutex
	prevEnd map[int]time.Duration // per lane: the end of its previous request
	lag     time.Duration         // worst delay between a lane's request ending and its next starting
}

func (s *sender) Now() time.Duration { return s.d.Now() }

func (s *sender) Closed() <-chan struct{} { return s.tk.closed }

func (s *sender) Next() (Ticket, bool) {
	seq, warm, ok := s.tk.take()
	return Ticket{Seq: seq, Warmup: warm}, ok
}

func (s *sender) Send(ctx context.Context, t Ticket, w int, sched time.Duration) {
	s.sendAt(ctx, t, w, sched, s.prompt(t.Seq), tags{})
}

// sendAt issues p, built ahead, as ticket t scheduled at sched (0: now):
// it waits for t's gate to open at sched, then for a slot under the
// level's cap, and reports false, sending nothing, when the feeder stopped
// or ctx ended first (the level then ended on its deadline, or was
// canceled).
//
// A Preparer's request is built before the gate (the ticket's instant):
// after it only the round trip.
func (s *sender) sendAt(ctx context.Context, t Ticket, w int, sched time.Duration, p client.Prompt, tg tags) (client.Record, bool) {
	s.classify(&p, t, &tg)
	var pr *client.Prepared
	pd, prepare := s.d.(Preparer)
	if prepare {
		pr = pd.Prepare(ctx, p)
	}
	if !t.gate.wait(ctx) {
		s.tk.drop()
		return client.Record{}, false
	}
	defer s.slots.take(ctx)()
	if prepare {
		return s.record(ctx, t, w, sched, pd.Send(ctx, pr), tg), true
	}
	return s.record(ctx, t, w, sched, s.d.Do(ctx, p), tg), true
}

// tags are what a record carries beyond its ticket: a session's turn
// (both 0 outside sessions), a trace request's lengths (0 outside a
// replay), its traffic class ("" without Config.Classes).
type tags struct {
	session, turn, traceIn, traceOut int
	class                            string
	sess                             turnTags // a session turn's further tags (session.go)
}

// do issues p as ticket t on lane w, tagged tg, and keeps its record,
// which it returns with the streamed reply when p asked for it (the kept
// copy drops it).
func (s *sender) do(ctx context.Context, t Ticket, w int, sched time.Duration, p client.Prompt, tg tags) client.Record {
	s.classify(&p, t, &tg)
	return s.record(ctx, t, w, sched, s.d.Do(ctx, p), tg)
}

// record keeps rec, the record of ticket t on lane w, tagged tg, as do
// does, and returns it.
func (s *sender) record(ctx context.Context, t Ticket, w int, sched time.Duration, rec client.Record, tg tags) client.Record {
	rec.Concurrency, rec.Rate, rec.Repeat, rec.Worker, rec.Seq, rec.Warmup = s.spec.Concurrency, s.spec.Load, s.repeat, w, t.Seq, t.Warmup
	rec.Sched, rec.Session, rec.Turn = sched, tg.session, tg.turn
	rec.TraceInput, rec.TraceOutput, rec.Class = tg.traceIn, tg.traceOut, tg.class
	rec.Branch, rec.ToolWait, rec.Think, rec.History = tg.sess.branch, tg.sess.tool, tg.sess.think, tg.sess.history
	if s.mark {
		rec.Mode = s.spec.Mode
	}
	reply := rec.Reply
	rec.Reply = ""
	if rec.ErrorClass == client.Canceled && errors.Is(context.Cause(ctx), errDrained) {
		rec.Error = DrainedError
	}
	s.mu.Lock()
	if sched == 0 { // a closed-loop worker: its lag between requests
		if prev, ok := s.prevEnd[w]; ok {
			s.lag = max(s.lag, rec.Start-prev)
		}
		s.prevEnd[w] = rec.End
	}
	s.mu.Unlock()
	s.sink.AddRecord(&rec)
	s.obs.RequestDone(&rec)
	if s.ab.see(&rec) {
		s.cancel()
	}
	rec.Reply = reply
	return rec
}

// rest restarts lane w's issue-lag clock: the pause that ends now (a
// session's think time) was deliberate, not lag.
func (s *sender) rest(w int) {
	now := s.d.Now()
	s.mu.Lock()
	s.prevEnd[w] = now
	s.mu.Unlock()
}

// newSink gives s its sink: cfg.Sink, else a MemorySink of its own.
func (s *sender) newSink() {
	s.sink = s.cfg.Sink
	if s.sink == nil {
		s.held = &MemorySink{}
		s.sink = s.held
	}
}

// handOver puts the level's records in l: the sink's, as l.Source, or the
// ones the sweep held, sorted by start time, as l.Records.
func (s *sender) handOver(l *Level) {
	if s.held != nil {
		l.Records = s.held.take()
		return
	}
	l.Source = s.sink.LevelRecords()
}
