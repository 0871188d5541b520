//go:build !linux

package nap

import "time"

// timer is empty here (no timerfd): New returns nil and callers yield.
type timer struct{}

func newTimer() *timer { return nil }

func (*timer) sleep(time.Duration) bool { return false }

func (*timer) close() {}
