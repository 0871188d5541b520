package nap

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// A Timer's Sleep never returns before its span and returns at once for a
// span ≤ 0; closed, or nil (no precise wait here), it reports false at
// once.
func TestSleepLastsItsSpan(t *testing.T) {
	tm := New()
	if (tm != nil) != (runtime.GOOS == "linux") {
		t.Fatalf("New() = %v on %s", tm, runtime.GOOS)
	}
	for _, d := range []time.Duration{-time.Millisecond, 0, 50 * time.Microsecond, 700 * time.Microsecond, 3 * time.Millisecond} {
		start := time.Now()
		ok := tm.Sleep(d)
		took := time.Since(start)
		if ok != (tm != nil) {
			t.Fatalf("Sleep(%v) = %v from %v", d, ok, tm)
		}
		if ok && took < d {
			t.Errorf("Sleep(%v) returned after %v", d, took)
		}
		if (!ok || d <= 0) && took > 50*time.Millisecond {
			t.Errorf("Sleep(%v) took %v, want at once", d, took)
		}
	}
	tm.Close()
	if start := time.Now(); tm.Sleep(time.Hour) || time.Since(start) > time.Second {
		t.Errorf("a closed Timer slept")
	}
}

// A goroutine sleeping on a Timer is parked in the network poller ("IO
// wait"), as on a socket, so its P runs the others or polls; a nanosleep
// would show as "syscall", its thread holding the P. The sleeper sleeps
// 100 ms after 100 ms until the test has its verdict, and the stacks are
// dumped every 10 ms, at most 100 times, until one shows it in IO wait: a
// dump may come before it first sleeps, between two sleeps or while it
// arms the timer (one dump 50 ms into one 300 ms sleep, judged alone,
// missed the sleep on a busy machine). An implementation that never parks
// in the poller shows no IO wait in any dump.
func TestSleepParksInThePoller(t *testing.T) {
	tm := New()
	if tm == nil {
		t.Skip("no precise wait on " + runtime.GOOS)
	}
	defer tm.Close()
	stop, slept := make(chan struct{}), make(chan bool, 1)
	go func() {
		for {
			if !tm.Sleep(100 * time.Millisecond) {
				slept <- false
				return
			}
			select {
			case <-stop:
				slept <- true
				return
			default:
			}
		}
	}()
	defer func() {
		close(stop)
		if !<-slept {
			t.Error("Sleep failed")
		}
	}()
	buf := make([]byte, 1<<20)
	seen := "no sleeping goroutine among the stacks"
	for range 100 {
		time.Sleep(10 * time.Millisecond)
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if strings.Contains(g, "nap.(*timer).sleep") {
				if head, _, _ := strings.Cut(g, "\n"); strings.Contains(head, "[IO wait") {
					return
				}
				seen = "the sleeper is " + g
			}
		}
	}
	t.Errorf("in 100 dumps the sleeper was never in IO wait; last seen: %s", seen)
}
