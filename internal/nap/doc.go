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
