//go:build !linux

package nap

import "time"

// Precise says Sleep blocks the thread; not on this platform, whose
// timers need no help or whose sleep the syscall package does not offer.
const Precise = false

func sleep(time.Duration) {}
