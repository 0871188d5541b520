//go:build unix

package app

import "syscall"

// raiseNoFile raises the soft RLIMIT_NOFILE to the hard limit and returns
// the soft limit in force afterwards, or 0 when it cannot be read. (The Go
// runtime already does the same at start on most unix systems; doing it
// here makes the limit the check reads the one the sweep runs under.)
func raiseNoFile() uint64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0
	}
	if r.Cur < r.Max {
		raised := r
		raised.Cur = raised.Max
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised) == nil {
			r = raised
		}
	}
	return uint64(r.Cur)
}
