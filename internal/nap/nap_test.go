package nap

import (
	"testing"
	"time"
)

// Sleep never returns before its span (a nanosleep cut short by a signal
// sleeps the rest), and returns at once for a span ≤ 0; where it has no
// precise sleep it returns false at once.
func TestSleepLastsItsSpan(t *testing.T) {
	for _, d := range []time.Duration{-time.Millisecond, 0, 50 * time.Microsecond, 700 * time.Microsecond, 3 * time.Millisecond} {
		start := time.Now()
		ok := Sleep(d)
		took := time.Since(start)
		if ok != Precise {
			t.Fatalf("Sleep(%v) = %v, want Precise (%v)", d, ok, Precise)
		}
		if Precise && took < d {
			t.Errorf("Sleep(%v) returned after %v", d, took)
		}
		if (!Precise || d <= 0) && took > 50*time.Millisecond {
			t.Errorf("Sleep(%v) took %v, want at once", d, took)
		}
	}
}
