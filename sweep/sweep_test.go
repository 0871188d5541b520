package sweep

import (
	"context"
	"errors"
	"iter"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/toksweep/toksweep/client"
)

// fakeDoer stands in for the HTTP client in tests of the scheduling logic
// alone (the HTTP path is tested end to end against real servers in app/).
// Each request takes `took`; fail decides a request's outcome.
type fakeDoer struct {
	epoch    time.Time
	took     time.Duration
	fail     func(n int64) (client.ErrorClass, int)
	fastOK   bool // successful requests return at once (to order completions)
	n        atomic.Int64
	inflight atomic.Int64
	peak     atomic.Int64
}

func newFake(took time.Duration) *fakeDoer { return &fakeDoer{epoch: time.Now(), took: took} }

func (f *fakeDoer) Now() time.Duration { return time.Since(f.epoch) }

func (f *fakeDoer) Do(ctx context.Context, p client.Prompt) client.Record {
	n := f.n.Add(1)
	cur := f.inflight.Add(1)
	defer f.inflight.Add(-1)
	for {
		old := f.peak.Load()
		if cur <= old || f.peak.CompareAndSwap(old, cur) {
			break
		}
	}
	r := client.Record{PromptID: p.ID, Start: f.Now()}
	if f.fail != nil {
		r.ErrorClass, r.Status = f.fail(n)
	}
	took := f.took
	if r.ErrorClass == client.OK && f.fastOK {
		took = 0
	}
	select {
	case <-time.After(took):
	case <-ctx.Done():
		r.ErrorClass = client.Canceled
	}
	r.End = f.Now()
	if r.ErrorClass != client.OK {
		r.Error = "HTTP failure"
	}
	return r
}

func collect(t *testing.T, ctx context.Context, cfg Config, d Doer) ([]Level, error) {
	t.Helper()
	var levels []Level
	err := Run(ctx, cfg, d, func(l Level) error { levels = append(levels, l); return nil })
	return levels, err
}

func prompts(n int) []client.Prompt {
	ps := make([]client.Prompt, n)
	for i := range ps {
		ps[i] = client.Prompt{ID: i, Text: "p"}
	}
	return ps
}

func TestRunClosedLoopCountsAndOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake(2 * time.Millisecond)
		cfg := Config{Load: ClosedLoad(1, 3), Requests: 7, Warmup: 2, Prompt: Cycle(prompts(3))}
		levels, err := collect(t, context.Background(), cfg, f)
		if err != nil {
			t.Fatal(err)
		}
		if len(levels) != 2 || levels[0].Concurrency != 1 || levels[1].Concurrency != 3 {
			t.Fatalf("levels = %+v", levels)
		}
		for _, l := range levels {
			if l.EndReason != Completed {
				t.Errorf("C=%d end reason %s", l.Concurrency, l.EndReason)
			}
			warm, measured, workers := 0, 0, map[int]bool{}
			for i, r := range l.Records {
				if r.Concurrency != l.Concurrency || r.PromptID != r.Seq%3 {
					t.Errorf("record %d bookkeeping %+v", i, r)
				}
				if i > 0 && r.Start < l.Records[i-1].Start {
					t.Errorf("records not sorted by start")
				}
				if r.Warmup != (r.Seq < 2) {
					t.Errorf("seq %d warmup=%v", r.Seq, r.Warmup)
				}
				if r.Warmup {
					warm++
				} else {
					measured++
				}
				workers[r.Worker] = true
			}
			if warm != 2 || measured != 7 || len(workers) != l.Concurrency {
				t.Errorf("C=%d warm=%d measured=%d workers=%d", l.Concurrency, warm, measured, len(workers))
			}
		}
		if p := f.peak.Load(); p != 3 {
			t.Errorf("peak in flight = %d, want 3 (closed loop at C=3)", p)
		}
	})
}

func TestRunAtLeastOneRequestPerWorker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		levels, err := collect(t, context.Background(), Config{Load: ClosedLoad(4), Requests: 1, Prompt: Cycle(prompts(1))}, newFake(time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		if n := len(levels[0].Records); n != 4 {
			t.Fatalf("records = %d, want 4 (one per worker)", n)
		}
	})
}

func TestAutoRequests(t *testing.T) {
	for c, want := range map[int]int{1: 8, 2: 8, 3: 12, 64: 256} {
		if got := AutoRequests(c); got != want {
			t.Errorf("AutoRequests(%d) = %d, want %d", c, got, want)
		}
	}
}

// TestRunDurationEndsLevelOnDeadline, in fake time (testing/synctest): 2
// workers of 5 ms requests under a 60 ms Duration take exactly 12 tickets
// each, at 0, 5, …, 55 ms; the tickets at 60 ms are refused.
func TestRunDurationEndsLevelOnDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake(5 * time.Millisecond)
		levels, err := collect(t, context.Background(), Config{Load: ClosedLoad(2), Duration: 60 * time.Millisecond, Prompt: Cycle(prompts(1))}, f)
		if err != nil {
			t.Fatal(err)
		}
		l := levels[0]
		if l.EndReason != Deadline {
			t.Fatalf("end reason %s, want deadline", l.EndReason)
		}
		if n := len(l.Records); n != 24 {
			t.Errorf("records = %d, want 24 (2 workers × 60ms / 5ms)", n)
		}
		// No request starts at or after the deadline, 60 ms from the first
		// start: the last started at 55 ms.
		first, last := l.Records[0].Start, l.Records[len(l.Records)-1].Start
		if last-first != 55*time.Millisecond {
			t.Errorf("the last request started %v after the first, want 55ms (the deadline is 60ms)", last-first)
		}
		if d := l.End - l.Start; d != 60*time.Millisecond {
			t.Errorf("the level lasted %v, want 60ms", d)
		}
	})
}

func TestRunAbortsOnUniformClientError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake(time.Millisecond)
		f.fail = func(int64) (client.ErrorClass, int) { return client.HTTP4xx, 401 }
		levels, err := collect(t, context.Background(), Config{Load: ClosedLoad(2, 4), Requests: 50, Prompt: Cycle(prompts(1))}, f)
		var ab *AbortError
		if !errors.As(err, &ab) || ab.Class != client.HTTP4xx || ab.Concurrency != 2 {
			t.Fatalf("err = %v, want AbortError at C=2", err)
		}
		if len(levels) != 1 || levels[0].EndReason != Aborted {
			t.Fatalf("levels = %d (%v), want 1 aborted", len(levels), levels[0].EndReason)
		}
		if n := f.n.Load(); n > 6 {
			t.Errorf("sent %d requests after the server refused them all; want the level stopped early", n)
		}
	})
}

func TestRunKeepsGoingOnServerErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake(time.Millisecond)
		f.fail = func(n int64) (client.ErrorClass, int) {
			if n%2 == 0 {
				return client.HTTP5xx, 500
			}
			return client.HTTP429, 429
		}
		levels, err := collect(t, context.Background(), Config{Load: ClosedLoad(1, 2), Requests: 4, Prompt: Cycle(prompts(1))}, f)
		if err != nil || len(levels) != 2 {
			t.Fatalf("err=%v levels=%d: 5xx and 429 are data, not a reason to stop", err, len(levels))
		}
	})
}

func TestRunMixedClientErrorsDoNotAbort(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake(5 * time.Millisecond)
		f.fastOK = true // the success completes first, before any 4xx
		f.fail = func(n int64) (client.ErrorClass, int) {
			if n == 2 {
				return client.OK, 200
			}
			return client.HTTP4xx, 400
		}
		if _, err := collect(t, context.Background(), Config{Load: ClosedLoad(2), Requests: 6, Prompt: Cycle(prompts(1))}, f); err != nil {
			t.Fatalf("err = %v; a level with a success must not abort", err)
		}
	})
}

func TestRunCanceledLevelIsDelivered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake(20 * time.Millisecond)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var once sync.Once
		cfg := Config{Load: ClosedLoad(1, 2, 4), Requests: 3, Prompt: Cycle(prompts(1))}
		cfg.Observer = funcObserver{done: func(r *client.Record) {
			if r.Concurrency == 2 {
				once.Do(cancel) // the first request of level 2 ends: interrupt
			}
		}}
		levels, err := collect(t, ctx, cfg, f)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if len(levels) != 2 || levels[0].EndReason != Completed || levels[1].EndReason != Canceled {
			t.Fatalf("levels = %+v; want level 1 completed and level 2 canceled", levels)
		}
		if n := len(levels[0].Records); n != 3 {
			t.Errorf("level 1 kept %d records, want 3", n)
		}
		// Two workers each had one request in flight; none may start another.
		if n := len(levels[1].Records); n > 2 {
			t.Errorf("level 2 has %d records; no request may start after the cancel", n)
		}
	})
}

func TestRunStopsWhenOnLevelFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		boom := errors.New("disk full")
		n := 0
		err := Run(context.Background(), Config{Load: ClosedLoad(1, 2), Requests: 1, Prompt: Cycle(prompts(1))}, newFake(time.Millisecond),
			func(Level) error { n++; return boom })
		if !errors.Is(err, boom) || n != 1 {
			t.Fatalf("err=%v after %d levels; want the write error after level 1", err, n)
		}
	})
}

// TestHealthIsMeasured, in fake time: 10 requests of 10 ms on 2 workers
// take exactly 50 ms of wall time, and the timer probe is never late.
func TestHealthIsMeasured(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		levels, err := collect(t, context.Background(), Config{Load: ClosedLoad(2), Requests: 10, Prompt: Cycle(prompts(1))}, newFake(10*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		h := levels[0].Health
		if h.WallSeconds != (50*time.Millisecond).Seconds() || h.GOMAXPROCS < 1 || h.CPUSeconds < 0 || h.TimerLateMax != 0 {
			t.Errorf("health %+v, want 0.05 wall seconds and no lateness", h)
		}
	})
}

// TestHealthTickerPeriod, in fake time: the lateness probe ticks every
// monitorTick (50 ms) of a level, each tick told to Observer.TimerLate, and a
// ticker that fires on time is 0 late.
func TestHealthTickerPeriod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		var mu sync.Mutex
		var at, late []time.Duration
		cfg := Config{Load: ClosedLoad(1), Requests: 1, Prompt: Cycle(prompts(1)), Observer: funcObserver{late: func(d time.Duration) {
			mu.Lock()
			defer mu.Unlock()
			at, late = append(at, time.Since(t0)), append(late, d)
		}}}
		levels, err := collect(t, context.Background(), cfg, newFake(1010*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		if len(at) != 20 {
			t.Fatalf("%d ticks in a 1.01s level, want 20: %v", len(at), at)
		}
		for i := range at {
			if want := time.Duration(i+1) * monitorTick; at[i] != want || late[i] != 0 {
				t.Errorf("tick %d at %v, %v late; want at %v, 0 late", i, at[i], late[i], want)
			}
		}
		if h := levels[0].Health; h.TimerLateMax != 0 || h.TimerLateP99 != 0 || h.WallSeconds != (1010*time.Millisecond).Seconds() {
			t.Errorf("health %+v, want no lateness in 1.01s", h)
		}
	})
}

// warmFake is a fakeDoer that records connection warm-ups.
type warmFake struct {
	*fakeDoer
	mu    sync.Mutex
	warms []int
	first []int64 // requests already sent when each warm-up ran
}

func (w *warmFake) WarmConns(_ context.Context, n int) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.warms = append(w.warms, n)
	w.first = append(w.first, w.n.Load())
	return nil
}

func TestRunWarmsConnectionsBeforeEachLevel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &warmFake{fakeDoer: newFake(time.Millisecond)}
		if _, err := collect(t, context.Background(), Config{Load: ClosedLoad(1, 4), Requests: 4, Prompt: Cycle(prompts(1))}, w); err != nil {
			t.Fatal(err)
		}
		if len(w.warms) != 2 || w.warms[0] != 1 || w.warms[1] != 4 || w.first[0] != 0 || w.first[1] != 4 {
			t.Errorf("warm-ups %v after %v requests; want C=1 before any request and C=4 before level 2's", w.warms, w.first)
		}
	})
}

// TestRunDrainCancelsLongRequests, in fake time: requests far longer than
// --duration are canceled exactly DrainTimeout after the deadline, marked
// as drained, and the level ends on its deadline (not as an interrupted
// run).
func TestRunDrainCancelsLongRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake(time.Minute)
		began := time.Now()
		levels, err := collect(t, context.Background(), Config{Load: ClosedLoad(3), Duration: 50 * time.Millisecond,
			DrainTimeout: 100 * time.Millisecond, Prompt: Cycle(prompts(1))}, f)
		if err != nil {
			t.Fatal(err)
		}
		if took := time.Since(began); took != 150*time.Millisecond {
			t.Errorf("the level took %v, want 150ms (50ms + the 100ms drain)", took)
		}
		l := levels[0]
		if l.EndReason != Deadline || len(l.Records) != 3 {
			t.Fatalf("end reason %s with %d records, want deadline with 3", l.EndReason, len(l.Records))
		}
		for _, r := range l.Records {
			if r.ErrorClass != client.Canceled || r.Error != DrainedError {
				t.Errorf("record %s %q, want canceled by the drain", r.ErrorClass, r.Error)
			}
			// Every one started at the level's start, before the 50ms
			// deadline, and was canceled when the 100ms drain ran out.
			if r.Start != l.Start || r.End-r.Start != 150*time.Millisecond {
				t.Errorf("request from %v to %v, want from the level's start %v for 150ms", r.Start, r.End, l.Start)
			}
		}
	})
}

// countingSink is a RecordSink that keeps only the tickets it was given
// and how often the sweep asked for a level's records.
type countingSink struct {
	mu    sync.Mutex
	seqs  map[int]bool
	asked int
	inner MemorySink
}

func (c *countingSink) AddRecord(r *client.Record) {
	c.mu.Lock()
	c.seqs[r.Seq] = true
	c.mu.Unlock()
	c.inner.AddRecord(r)
}

func (c *countingSink) LevelRecords() iter.Seq[*client.Record] {
	c.asked++
	return c.inner.LevelRecords()
}

// With Config.Sink, each finished record is handed to the sink, warm-up
// included; the level keeps none and its Source is the sink's: each
// level's records, read back anew on each pass, and only that level's.
func TestRunRecordSink(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake(time.Millisecond)
		sink := &countingSink{seqs: map[int]bool{}}
		cfg := Config{Load: ClosedLoad(4, 2), Requests: 12, Warmup: 3, Prompt: Cycle(prompts(2)), Sink: sink}
		levels, err := collect(t, context.Background(), cfg, f)
		if err != nil {
			t.Fatal(err)
		}
		if len(levels) != 2 || levels[0].Records != nil || levels[0].Source == nil {
			t.Fatalf("levels %d, records kept %d; want 2 levels keeping none, read from the sink", len(levels), len(levels[0].Records))
		}
		if len(sink.seqs) != 15 || !sink.seqs[0] || !sink.seqs[14] || sink.asked != 2 {
			t.Errorf("the sink saw tickets %v and was asked %d times, want 0 to 14 and twice", sink.seqs, sink.asked)
		}
		for i, l := range levels {
			for pass := range 2 {
				n, prev := 0, time.Duration(-1)
				for r := range l.All() {
					if r.Concurrency != l.Concurrency || r.Start < prev {
						t.Fatalf("level %d pass %d: record at C=%d starting %v after %v", i, pass, r.Concurrency, r.Start, prev)
					}
					n, prev = n+1, r.Start
				}
				if n != 15 {
					t.Errorf("level %d pass %d: %d records, want 15", i, pass, n)
				}
			}
		}
	})
}

// A MemorySink hands over a level's records sorted by start (ties by
// ticket) and begins the next level with none.
func TestMemorySink(t *testing.T) {
	var m MemorySink
	for _, r := range []client.Record{{Seq: 2, Start: 5}, {Seq: 1, Start: 5}, {Seq: 0, Start: 9}} {
		m.AddRecord(&r)
	}
	var seqs []int
	for r := range m.LevelRecords() {
		seqs = append(seqs, r.Seq)
	}
	if !slices.Equal(seqs, []int{1, 2, 0}) {
		t.Errorf("level records by ticket %v, want [1 2 0]", seqs)
	}
	for range m.LevelRecords() {
		t.Fatal("the next level starts with records")
	}
}
