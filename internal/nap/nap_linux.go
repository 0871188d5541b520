package nap

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// timer is a non-blocking timerfd, which os.NewFile registers with the
// network poller: a Read parks the goroutine until it fires.
type timer struct {
	fd     int
	f      *os.File
	buf    [8]byte // the expiration count a Read returns
	closed bool    // its fd may since name another file
}

func newTimer() *timer {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil
	}
	return &timer{fd: fd, f: os.NewFile(uintptr(fd), "nap")}
}

func (t *timer) sleep(d time.Duration) bool {
	if t.closed {
		return false
	}
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	if unix.TimerfdSettime(t.fd, 0, &spec, nil) != nil {
		return false
	}
	_, err := t.f.Read(t.buf[:])
	return err == nil
}

func (t *timer) close() {
	t.closed = true
	_ = t.f.Close()
}
