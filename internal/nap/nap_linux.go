package nap

import (
	"syscall"
	"time"
)

// Precise says Sleep blocks the thread (nanosleep) here.
const Precise = true

func sleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR { // a signal (the Go runtime's preemption) cut it short: sleep the rest
	}
}
