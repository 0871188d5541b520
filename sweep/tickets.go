package sweep

import (
	"sync"
	"time"

	"github.com/toksweep/toksweep/client"
)

// tickets hands out request slots to a level's workers: first the warm-up
// slots, then the measured ones, until the count or the deadline runs out.
// Handing out slots from one counter (rather than a fixed share per worker)
// keeps every worker busy until the level's work is nearly done, which keeps
// the drain tail short.
type tickets struct {
	mu       sync.Mutex
	next     int
	warmup   int
	limit    int           // warmup + measured
	dur      time.Duration // measured-phase bound; 0 = none
	deadline time.Duration // set when the first measured ticket is taken
	late     bool          // a ticket was refused because of the deadline
	now      func() time.Duration
	// drain is how long requests in flight at the deadline may go on; cut,
	// when set, cancels them, from a timer armed with the deadline.
	drain time.Duration
	cut   func()
	timer *time.Timer
	// closed is closed, by shut, when the deadline passes: no ticket is
	// handed out after it, and an open-loop feeder stops waiting.
	closed chan struct{}
	shut   *time.Timer
	isShut bool
	// ended is closed, by end, when the level's load ends: its last ticket
	// is handed out, or its deadline passes. Every worker is busy then
	// (the last ticket's, about to send), and from then on fewer are.
	ended   chan struct{}
	isEnded bool
}

func newTickets(warmup, measured int, dur time.Duration, now func() time.Duration) *tickets {
	return &tickets{warmup: warmup, limit: warmup + measured, dur: dur, now: now, closed: make(chan struct{}), ended: make(chan struct{})}
}

// end closes ended, once; t.mu is held.
func (t *tickets) end() {
	if !t.isEnded {
		t.isEnded = true
		close(t.ended)
	}
}

// close ends the level's measured phase at its deadline; it counts as
// ending on the deadline when work was left.
func (t *tickets) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.isShut {
		return
	}
	t.isShut = true
	if t.next < t.limit {
		t.late = true
	}
	close(t.closed)
	t.end()
}

// take returns the next ticket's sequence number and whether it is a warm-up
// request; ok is false when the level has no more work.
func (t *tickets) take() (seq int, warm, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.next >= t.limit {
		return 0, false, false
	}
	if t.isShut {
		t.late = true
		return 0, false, false
	}
	seq = t.next
	warm = seq < t.warmup
	if !warm && t.dur > 0 {
		now := t.now()
		if t.deadline == 0 {
			t.deadline = now + t.dur
			t.shut = time.AfterFunc(t.dur, t.close)
			if t.cut != nil {
				t.timer = time.AfterFunc(t.dur+t.drain, t.cut)
			}
		} else if now >= t.deadline {
			t.late = true
			t.end()
			return 0, false, false
		}
	}
	t.next++
	if t.next >= t.limit {
		t.end()
	}
	return seq, warm, true
}

// drop gives back a ticket taken but never sent (an open loop's request
// whose instant came after the level closed): the level has ended on its
// deadline with work left.
func (t *tickets) drop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.late = true
}

// stop disarms the drain timer.
func (t *tickets) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.timer != nil {
		t.timer.Stop()
	}
	if t.shut != nil {
		t.shut.Stop()
	}
}

// expired reports whether the level ended on its deadline.
func (t *tickets) expired() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.late
}

// Unlimited is the ticket count used when only a duration bounds a level.
const Unlimited = int(^uint(0) >> 2)

// aborter watches a level's results and trips when the first C requests
// (at least) all failed with the same client-side HTTP error, as a status
// or as an error event inside a 200 stream: a wrong key, an unknown model,
// a prompt that does not fit. 429 and 5xx never trip it; they are the
// server under load, which is what is being measured.
type aborter struct {
	mu      sync.Mutex
	need    int
	seen    int
	first   *client.Record
	trip    bool
	canTrip bool
}

func newAborter(c int) *aborter { return &aborter{need: c, canTrip: true} }

// see records one finished request and reports whether the level must stop.
func (a *aborter) see(r *client.Record) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.canTrip || r.ErrorClass == client.Canceled {
		return false
	}
	if code := refusal(r); code == 0 || (a.first != nil && code != refusal(a.first)) {
		a.canTrip = false
		return false
	}
	if a.first == nil {
		rc := *r
		a.first = &rc
	}
	a.seen++
	if a.seen >= a.need {
		a.trip = true
	}
	return a.trip
}

// refusal is the client-side code a failed request was refused with: its
// 4xx status (429 is not one), or the 4xx code of its error event; 0 for
// anything else.
func refusal(r *client.Record) int {
	switch r.ErrorClass {
	case client.HTTP4xx:
		return r.Status
	case client.StreamError:
		if code := client.EventCode(r.Error); code >= 400 && code < 500 && code != 429 {
			return code
		}
	}
	return 0
}

func (a *aborter) tripped() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.trip
}

func (a *aborter) err(c int) *AbortError {
	a.mu.Lock()
	defer a.mu.Unlock()
	return &AbortError{Concurrency: c, Class: a.first.ErrorClass, Message: a.first.Error}
}
