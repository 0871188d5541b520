// Package nap waits for short spans more precisely than Go's timers can on
// Linux, without keeping the Go scheduler from polling the network.
//
// Go's timers on Linux wait in epoll_wait, whose timeout is whole
// milliseconds: a 0.3 ms timer wakes about 1 ms later, a 1.1 ms one about
// 2 ms later. A pacer that needs sub-millisecond accuracy therefore sleeps
// on a timer until a margin before its deadline and waits out the margin
// some other way, and both ways it had starve the network poller in a
// process that is client and server both (the simulator in the tests):
//
//   - yielding in a loop (runtime.Gosched): a goroutine that always yields
//     is always in a run queue, and a P finds it there before it looks at
//     the network;
//   - a nanosleep of the thread: its P stays with it, in a syscall, and
//     with two such sleepers on two Ps no P is idle to poll.
//
// Either way the server read its requests late, by up to sysmon's 10 ms
// poll. A Timer instead arms a timerfd (nanosecond resolution) and reads it
// through the network poller: the goroutine parks as on a socket, its P
// runs the others or waits in epoll_wait, which wakes for the timerfd and
// the connections alike, 30–90 µs after the span (p50–p90).
package nap

import "time"

// Margin is how late a Sleep may wake and still be on time for a waiter: a
// waiter naps until Margin before its deadline and yields
// (runtime.Gosched) for the rest.
const Margin = 200 * time.Microsecond

// A Timer waits for short spans. It is used by one goroutine at a time.
// A nil *Timer (New where the platform has no precise wait) waits for
// nothing: its Sleep reports false.
type Timer struct{ t *timer }

// New returns a Timer, or nil where the platform has none or it cannot be
// made (out of descriptors, say): the caller then yields instead.
func New() *Timer {
	t := newTimer()
	if t == nil {
		return nil
	}
	return &Timer{t}
}

// Sleep waits for at least d (nothing when d ≤ 0) and reports true; false,
// at once, from a nil or closed Timer.
func (t *Timer) Sleep(d time.Duration) bool {
	if t == nil {
		return false
	}
	if d <= 0 {
		return true
	}
	return t.t.sleep(d)
}

// Close releases the timer; a nil Timer has nothing to release.
func (t *Timer) Close() {
	if t != nil {
		t.t.close()
	}
}
