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
