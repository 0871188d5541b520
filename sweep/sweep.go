package sweep

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/toksweep/toksweep/client"
)

// Doer issues one request and reports it as a record. *client.Client is the
// production Doer; Now must be the clock the records' instants are on.
type Doer interface {
	Do(ctx context.Context, p client.Prompt) client.Record
	Now() time.Duration
}

var (
	_ Doer   = (*client.Client)(nil)
	_ Warmer = (*client.Client)(nil)
)

// Warmer is a Doer that can open connections ahead of a level, so that no
// measured request's TTFT includes a TCP or TLS handshake. The sweep opens
// C connections before each level's clock starts; a failure there is not an
// error (the level's requests will meet and record the same problem).
type Warmer interface {
	WarmConns(ctx context.Context, n int) error
}

// Config says which levels to run and how long each lasts.
type Config struct {
	Levels []int // concurrency levels, run in this order
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
	// workers' goroutines, so it must be safe for concurrent use. Cycle
	// sends a fixed set in order.
	Prompt func(seq int) client.Prompt
	// Observe, when set, is told about every finished request (for live
	// progress). It runs on the worker's goroutine and must be cheap.
	Observe func(client.Record)
	// Started, when set, is told when a level starts, with its planned
	// number of measured requests (0: bounded by Duration only).
	Started func(c, repeat, planned int)
	// Plan, when set, chooses the levels one at a time instead of Levels.
	Plan Planner
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

// Planner chooses a sweep's levels one at a time. Next is called after the
// previous level (all its repeats) has been handed to onLevel, so an
// adaptive planner can judge it before choosing the next.
type Planner interface {
	Next() (c int, ok bool)
}

// fixedPlan runs a fixed list of levels in order.
type fixedPlan struct {
	levels []int
	i      int
}

func (p *fixedPlan) Next() (int, bool) {
	if p.i >= len(p.levels) {
		return 0, false
	}
	p.i++
	return p.levels[p.i-1], true
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
	Concurrency int
	Class       client.ErrorClass
	Message     string // the first failing request's error
}

func (e *AbortError) Error() string {
	return fmt.Sprintf("every request at concurrency %d failed (%s): %s", e.Concurrency, e.Class, e.Message)
}

// Run runs every level in order and calls onLevel with each level's records
// as soon as the level ends, including a level cut short by cancellation, so
// that the caller can flush it to disk. It returns context.Cause(ctx) when canceled, an
// *AbortError when a level was aborted, onLevel's error if it fails, and nil
// otherwise. Failed requests are never an error here.
func Run(ctx context.Context, cfg Config, d Doer, onLevel func(Level) error) error {
	if cfg.Prompt == nil {
		return errors.New("sweep: no prompts")
	}
	repeat := max(cfg.Repeat, 1)
	plan := cfg.Plan
	if plan == nil {
		plan = &fixedPlan{levels: cfg.Levels}
	}
	k := 0
	for c, ok := plan.Next(); ok; c, ok = plan.Next() {
		for r := range repeat {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			workers, err := beforeLevel(ctx, cfg, k, c)
			if err != nil {
				return err
			}
			k++
			lvl, abort := runLevel(ctx, cfg, d, workers, r)
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

// runLevel runs one level to its end and returns its records.
func runLevel(ctx context.Context, cfg Config, d Doer, c, repeat int) (Level, *AbortError) {
	measured := max(cfg.Requests, c)
	switch {
	case cfg.Requests <= 0 && cfg.Duration > 0:
		measured = unlimited
	case cfg.Requests <= 0:
		measured = AutoRequests(c)
	}
	tk := newTickets(cfg.Warmup, measured, cfg.Duration, d.Now)
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rctx, stopDrain := withDrain(lctx, cfg, tk)
	defer stopDrain()
	if cfg.Started != nil {
		planned := measured
		if measured == unlimited {
			planned = 0
		}
		cfg.Started(c, repeat, planned)
	}
	ab := newAborter(c)

	if w, ok := d.(Warmer); ok {
		_ = w.WarmConns(lctx, c)
	}

	stopServer := cfg.Server.start(ctx, c)
	mon := startMonitor()
	start := d.Now()
	perWorker := make([][]client.Record, c)
	lags := make([]time.Duration, c)
	var g errgroup.Group
	for w := range c {
		g.Go(func() error {
			perWorker[w], lags[w] = work(rctx, cfg, d, tk, ab, cancel, c, repeat, w)
			return nil
		})
	}
	_ = g.Wait() // workers never fail: failed requests are data
	end := d.Now()

	lvl := Level{Concurrency: c, Repeat: repeat, Start: start, End: end}
	lvl.Server = stopServer()
	lvl.Records = merge(perWorker)
	lvl.Health = mon.stop()
	lvl.Health.IssueLagMax = slices.Max(lags)
	lvl.EndReason = Completed
	switch {
	case ctx.Err() != nil:
		lvl.EndReason = Canceled
	case ab.tripped():
		lvl.EndReason = Aborted
		return lvl, ab.err(c)
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

// work is one closed-loop worker. It returns its records and the worst delay
// between finishing one request and starting the next.
func work(ctx context.Context, cfg Config, d Doer, tk *tickets, ab *aborter, cancel func(), c, repeat, w int) ([]client.Record, time.Duration) {
	var recs []client.Record
	var lag time.Duration
	var prevEnd time.Duration
	for ctx.Err() == nil {
		seq, warm, ok := tk.take()
		if !ok {
			break
		}
		rec := d.Do(ctx, cfg.Prompt(seq))
		rec.Concurrency, rec.Repeat, rec.Worker, rec.Seq, rec.Warmup = c, repeat, w, seq, warm
		if rec.ErrorClass == client.Canceled && errors.Is(context.Cause(ctx), errDrained) {
			rec.Error = DrainedError
		}
		if prevEnd > 0 {
			lag = max(lag, rec.Start-prevEnd)
		}
		prevEnd = rec.End
		recs = append(recs, rec)
		if cfg.Observe != nil {
			cfg.Observe(rec)
		}
		if ab.see(&rec) {
			cancel()
		}
	}
	return recs, lag
}

// merge joins the workers' records into one slice sorted by start time.
func merge(perWorker [][]client.Record) []client.Record {
	n := 0
	for _, rs := range perWorker {
		n += len(rs)
	}
	all := make([]client.Record, 0, n) // sized once: a level can hold 10⁵ records
	for _, rs := range perWorker {
		all = append(all, rs...)
	}
	slices.SortStableFunc(all, func(a, b client.Record) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Seq, b.Seq))
	})
	return all
}
