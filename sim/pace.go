package sim

import (
	"runtime"
	"sync"
	"time"

	"github.com/toksweep/toksweep/internal/nap"
)

// Pacing bounds. Go timers wake late: by ~0.1–0.2ms on a good day, and on
// platforms where the runtime waits with millisecond resolution (Linux), by
// up to a whole millisecond more (a 1.1ms sleep can take 2.15ms). So the
// pacer sleeps on a timer until a margin before the deadline, naps
// (internal/nap: a timerfd read through the network poller) until
// nap.Margin before it, and yields for the rest.
//
// Yielding for the whole margin (1.2–1.5ms on Linux, all of a 2ms step)
// kept the Go scheduler from polling the network: a goroutine that always
// yields is always in a run queue, which a P looks at first. In a process
// that is client and server both (the tests), the server then read its
// requests up to 10ms late (sysmon's poll). A napping goroutine is parked
// as on a socket.
const (
	minSpin = 300 * time.Microsecond  // margin kept even with precise timers
	maxSpin = 1500 * time.Microsecond // margin never exceeds this
	// minSleep is the shortest sleep worth asking for: on millisecond-
	// resolution platforms anything shorter takes about a millisecond.
	minSleep = time.Millisecond
)

// timerOvershoot probes, once per process, how late this platform's timers
// wake, with sleeps that are not whole milliseconds so that a millisecond
// resolution shows. It costs about 5ms, the first time a Server is made.
var timerOvershoot = sync.OnceValue(func() time.Duration {
	var worst time.Duration
	for _, d := range []time.Duration{1100 * time.Microsecond, 1500 * time.Microsecond, 1900 * time.Microsecond} {
		start := time.Now()
		time.Sleep(d)
		worst = max(worst, time.Since(start)-d)
	}
	return worst
})

// pacer waits until absolute deadlines with sub-millisecond accuracy. It is
// owned by the scheduler goroutine.
type pacer struct {
	done  <-chan struct{}
	timer *time.Timer
	nap   *nap.Timer // nil where there is none: the pacer yields instead
	// overshoot is the latest the timer has woken so far (starting from the
	// probe), which sets the spin margin: small on platforms with precise
	// timers, so the scheduler does not burn a core, and up to maxSpin
	// elsewhere. It never decays: with millisecond-resolution timers the
	// overshoot depends on where a sleep falls against the millisecond, and
	// a margin that shrank back after a run of lucky sleeps would make
	// every few hundredth step late.
	overshoot time.Duration
}

func newPacer(done <-chan struct{}) *pacer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &pacer{done: done, timer: t, nap: nap.New(), overshoot: timerOvershoot()}
}

// margin is how long before a deadline the pacer stops sleeping.
func (p *pacer) margin() time.Duration {
	return min(maxSpin, max(minSpin, p.overshoot+200*time.Microsecond))
}

// waitUntil returns at deadline (or as soon after it as the Go scheduler
// allows), or false early if done is closed.
func (p *pacer) waitUntil(deadline time.Time) bool {
	if d := time.Until(deadline) - p.margin(); d >= minSleep {
		wake := time.Now().Add(d)
		p.timer.Reset(d)
		select {
		case <-p.timer.C:
		case <-p.done:
			p.timer.Stop()
			return false
		}
		p.overshoot = max(p.overshoot, time.Since(wake))
	}
	if p.nap.Sleep(time.Until(deadline) - nap.Margin) {
		select {
		case <-p.done:
			return false
		default:
		}
	}
	for time.Now().Before(deadline) {
		runtime.Gosched()
	}
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

func (p *pacer) stop() {
	p.timer.Stop()
	p.nap.Close()
}
