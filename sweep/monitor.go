package sweep

import (
	"runtime"
	"slices"
	"time"

	"github.com/toksweep/toksweep/internal/pct"
)

// monitorTick is the period of the lateness probe. A ticker that fires late
// means goroutines wait to be scheduled, and so do the readers that
// timestamp tokens: the figures then carry the client's delay.
//
// Each tick samples the scheduler's delay at an instant unrelated to the
// load, so the period sets how many samples a level gets, not what they
// measure: at 50 ms a 10 s level still has 200, and a starved scheduler is
// late on every one of them (health_probe_test.go). A 10 ms ticker cost
// ~60 µs of CPU per wake on an idle process, as much CPU as the tokens of
// a single stream (bench/results.md, "cost per token").
const monitorTick = 50 * time.Millisecond

// monitor measures the load generator itself during a level: CPU time from
// getrusage and the lateness of a periodic timer.
type monitor struct {
	start  time.Time
	cpu0   time.Duration
	done   chan struct{}
	result chan []time.Duration
	late   func(time.Duration) // the Observer's TimerLate, or nil
}

// startMonitor starts the level's probe; late, when not nil, is told each
// tick's lateness.
func startMonitor(late func(time.Duration)) *monitor {
	m := &monitor{start: time.Now(), cpu0: processCPU(), done: make(chan struct{}), result: make(chan []time.Duration, 1), late: late}
	if probeOff {
		m.result <- nil
	} else {
		go m.probe()
	}
	return m
}

// probe records how late each tick of a ticker fires until stop is called.
func (m *monitor) probe() {
	t := time.NewTicker(monitorTick)
	defer t.Stop()
	var late []time.Duration
	for {
		select {
		case <-m.done:
			m.result <- late
			return
		case now := <-t.C:
			// The ticker channel carries the scheduled time; reading the
			// clock now tells how long the tick waited for this goroutine.
			d := max(time.Since(now), 0)
			late = append(late, d)
			if m.late != nil {
				m.late(d)
			}
		}
	}
}

// ProcessCPU is this process's user+system CPU time so far (0 where it is
// not measured): the clock Health.CPUSeconds is read from.
func ProcessCPU() time.Duration { return processCPU() }

// stop ends the probe and returns the level's health figures.
func (m *monitor) stop() Health {
	close(m.done)
	late := <-m.result
	h := Health{
		CPUSeconds:  (processCPU() - m.cpu0).Seconds(),
		WallSeconds: time.Since(m.start).Seconds(),
		GOMAXPROCS:  runtime.GOMAXPROCS(0),
	}
	if len(late) > 0 {
		slices.Sort(late)
		h.TimerLateMax = late[len(late)-1]
		h.TimerLateP99 = late[pct.Rank(len(late), 99)-1]
	}
	return h
}
