package sweep

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/toksweep/toksweep/internal/nap"
)

// The open loop's dispatcher: how a request scheduled at an instant is
// sent at that instant rather than a millisecond or more after it. Left to
// a plain timer and a goroutine started at the instant, a send is late by
// the sum of:
//
//   - the timer's wake-up: Go's timers on Linux wait in epoll_wait, whose
//     timeout is whole milliseconds, so a timer fires up to 1 ms after its
//     instant (0.5 ms on average);
//   - starting the request's goroutine, and building its prompt (a trace's
//     token-id prompts are thousands of numbers), after the instant.
//
// So the feeder claims each request sendLead before its instant and starts
// its goroutine then, which builds the prompt and, with a Preparer (the
// client), the request's body and *http.Request, and waits on the
// request's gate; the feeder itself waits for the instant (waitUntil: on a timer
// until spinWindow before it, then napping (internal/nap: a timerfd read
// through the network poller) until nap.Margin before it, then yielding
// until the clock reaches it) and opens the gate. One goroutine, the
// feeder, yields at a time, and only for the last nap.Margin: a yielding
// goroutine is always in a run queue, which the Go scheduler looks at
// before the network, so yielding for the whole window (or a yielding
// goroutine per request) keeps the process from reading its connections.
const (
	// sendLead is how long before its instant a request's goroutine is
	// started: time to build its prompt off the clock.
	sendLead = 5 * time.Millisecond
	// spinWindow is how long before an instant waitUntil stops sleeping on
	// a timer and naps, then yields, until the clock reaches it: twice the
	// timer's millisecond granularity. A timer on Linux wakes up to 1 ms
	// late by that granularity alone, and later on a busy machine: with a
	// 1 ms window, 50 of a replay's 300 timers woke after the instant itself
	// (beside a load average of 4.6), with 2 ms 25.
	spinWindow = 2 * time.Millisecond
	// handGuard is how long before the next gate's instant the feeder hands
	// a request over at the latest, early if its sendLead falls later: the
	// hand-over's timer may wake a millisecond or more late, and the gate
	// waits for the feeder.
	handGuard = 2 * spinWindow
)

// gate holds a request handed over ahead of its instant: the feeder closes
// open at the instant, and stop when it returns (the level closed, or ctx
// ended), for the requests whose instant it never reached. The zero gate
// (a closed loop's request) is open.
type gate struct{ open, stop <-chan struct{} }

// wait reports whether the gate opened; false when the feeder stopped or
// ctx ended first.
func (g gate) wait(ctx context.Context) bool {
	if g.open == nil {
		return true
	}
	select {
	case <-g.open: // opened first wins, whatever closed since
		return true
	default:
	}
	select {
	case <-g.open:
		return true
	case <-g.stop:
		return false
	case <-ctx.Done():
		return false
	}
}

// feed is an open loop's feeder. Request i is scheduled at start + the
// plan's i-th offset, where start is sendLead after feed is called (so
// that the first request, too, is prepared ahead of its instant). For each,
// sendLead before the instant (or earlier: no later than handGuard before
// the next gate's instant), the feeder claims the next ticket and
// starts send on a goroutine of its own with the ticket's gate, which
// send's sender.sendAt waits on; at the instant the feeder opens it. It
// hands over no more when the plan ends or the tickets run out, and opens
// the gates it holds at their instants; it stops at once when the level
// closes at its Duration or ctx ends (the held requests are not sent). It
// returns when every send has returned.
func feed(ctx context.Context, s Sender, plan Schedule, send func(t Ticket, i int, sched time.Duration)) {
	var wg sync.WaitGroup
	defer wg.Wait()
	stop := make(chan struct{})
	defer close(stop)
	type held struct {
		at   time.Duration
		open chan struct{}
	}
	var queue []held // handed over, not yet open, in order of instant
	tm := nap.New()
	defer tm.Close()
	start := s.Now() + sendLead
	next, more := plan()
	for i := 0; more || len(queue) > 0; {
		if len(queue) > 0 && (!more || queue[0].at <= start+next-sendLead) {
			if !waitUntil(ctx, s.Closed(), s.Now, tm, queue[0].at) {
				return
			}
			close(queue[0].open)
			queue = queue[1:]
			continue
		}
		sched := start + next
		hand := sched - sendLead
		if len(queue) > 0 { // a late timer must not make the next gate late
			hand = min(hand, queue[0].at-handGuard)
		}
		if !sleepFor(ctx, s.Closed(), hand-s.Now()) {
			return
		}
		t, ok := s.Next()
		if ctx.Err() != nil {
			return
		}
		if !ok { // no more tickets: the ones handed over still go at their instants
			more = false
			continue
		}
		open := make(chan struct{})
		t.gate = gate{open: open, stop: stop}
		queue = append(queue, held{at: sched, open: open})
		n := i
		wg.Go(func() { send(t, n, sched) })
		i++
		next, more = plan()
	}
}

// waitUntil returns when now() reaches at: it sleeps on a timer until
// spinWindow before at, naps on tm until nap.Margin before at (where tm is
// not nil), then yields to the other goroutines until the clock reaches
// it. It reports false, early, when ctx ends or closed is closed first. A
// clock that does not move between two reads (a fake clock, as inside a
// testing/synctest bubble, or a coarse one) ends the yielding, before any
// nap: a timer then covers the rest.
func waitUntil(ctx context.Context, closed <-chan struct{}, now func() time.Duration, tm *nap.Timer, at time.Duration) bool {
	if !sleepFor(ctx, closed, at-spinWindow-now()) {
		return false
	}
	for prev := now(); prev < at; {
		runtime.Gosched()
		n := now()
		if n == prev {
			return sleepFor(ctx, closed, at-n)
		}
		if d := at - nap.Margin - n; d > 0 && tm.Sleep(d) {
			n = now()
		}
		prev = n
	}
	return ctx.Err() == nil
}

// sleepFor sleeps for d on a timer (not at all when d ≤ 0); false when ctx
// ends or closed is closed first.
func sleepFor(ctx context.Context, closed <-chan struct{}, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-closed:
		return false
	case <-t.C:
		return true
	}
}

// slots is an open-loop level's cap on requests in flight
// (its key's Concurrency); nil: no cap.
type slots chan struct{}

func newSlots(n int) slots {
	if n <= 0 {
		return nil
	}
	return make(slots, n)
}

// take waits for a slot and returns its release. A request whose ctx ends
// first goes on without one (it ends at once, canceled, and is recorded).
func (sl slots) take(ctx context.Context) (release func()) {
	if sl == nil {
		return func() {}
	}
	select {
	case sl <- struct{}{}:
		return func() { <-sl }
	case <-ctx.Done():
		return func() {}
	}
}
