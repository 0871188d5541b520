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
// would show as "syscall", its thread holding the P.
func TestSleepParksInThePoller(t *testing.T) {
	tm := New()
	if tm == nil {
		t.Skip("no precise wait on " + runtime.GOOS)
	}
	defer tm.Close()
	stacks := make(chan string, 1)
	go func() {
		time.Sleep(50 * time.Millisecond)
		buf := make([]byte, 1<<20)
		stacks <- string(buf[:runtime.Stack(buf, true)])
	}()
	if !tm.Sleep(300 * time.Millisecond) {
		t.Fatal("Sleep failed")
	}
	for _, g := range strings.Split(<-stacks, "\n\n") {
		if strings.Contains(g, "nap.(*timer).sleep") {
			if head, _, _ := strings.Cut(g, "\n"); !strings.Contains(head, "[IO wait") {
				t.Errorf("the sleeper is %s, want in IO wait:\n%s", head, g)
			}
			return
		}
	}
	t.Error("no sleeping goroutine among the stacks")
}
