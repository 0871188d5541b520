//go:build !unix

package app

// raiseNoFile is a no-op where there is no RLIMIT_NOFILE: 0 means unknown,
// and checkFDs then checks nothing.
func raiseNoFile() uint64 { return 0 }
