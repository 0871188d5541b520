package sweep

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestProbeSeesStarvedScheduler: with one P kept busy by goroutines that
// never block, the probe's goroutine waits for the scheduler to preempt
// them (about every 10 ms), and its ticks report that wait. The probe's
// period must still catch it: the lateness p99 stays above the 5 ms that
// report.TimerLateFloor calls late. A busier host only adds lateness.
func TestProbeSeesStarvedScheduler(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for n := 0; !stop.Load(); n++ {
			}
		})
	}
	m := startMonitor(nil)
	time.Sleep(20 * monitorTick)
	h := m.stop()
	stop.Store(true)
	wg.Wait()
	t.Logf("starved: timer late p99 %v, max %v", h.TimerLateP99, h.TimerLateMax)
	if h.TimerLateP99 < 5*time.Millisecond {
		t.Errorf("timer late p99 %v with the only P busy, want at least 5ms", h.TimerLateP99)
	}
}
