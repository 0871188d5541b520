// Package nap sleeps for short spans more precisely than Go's timers can on
// Linux, without keeping the Go scheduler from polling the network.
//
// Go's timers on Linux wait in epoll_wait, whose timeout is whole
// milliseconds: a 0.3 ms timer wakes about 1 ms later, a 1.1 ms one about
// 2 ms later. A pacer that needs sub-millisecond accuracy therefore sleeps
// on a timer until a margin before its deadline and waits out the margin
// some other way. Yielding in a loop (runtime.Gosched) is accurate, but a
// goroutine that always yields is always in a run queue, and a P finds it
// there before it looks at the network: in a process that is both client
// and server (the simulator in the tests) the server then reads requests
// late, by up to sysmon's 10 ms poll. Sleep instead blocks the calling
// goroutine's OS thread in the kernel (nanosleep, late by the thread's timer
// slack: about 50–100 µs), which leaves the other Ps free to run goroutines
// and to poll the network while it waits.
package nap

import "time"

// Margin is how late a Sleep may wake and still be on time for a waiter:
// the thread's timer slack (50 µs) and the kernel's wake-up make a
// nanosleep 65–140 µs late at p50–p90 beside a load average of 3.7 on two
// cores. A waiter naps until Margin before its deadline and yields
// (runtime.Gosched) for the rest.
const Margin = 200 * time.Microsecond

// Sleep blocks the calling goroutine's thread for at least d (nothing when
// d ≤ 0). It reports false, at once, where the platform has no such sleep
// (Precise is false): the caller then waits some other way.
func Sleep(d time.Duration) bool {
	if !Precise {
		return false
	}
	if d > 0 {
		sleep(d)
	}
	return true
}
