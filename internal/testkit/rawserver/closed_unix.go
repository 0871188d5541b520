//go:build unix

package rawserver

import (
	"errors"
	"fmt"
	"syscall"
	"testing"
)

// Closed is a loopback address ("127.0.0.1:PORT") that refuses every
// connection for the whole life of the test t, and of its subtests.
//
// It holds a TCP socket bound to the port but never listening: a
// connection to it finds no listener and is refused (RST, ECONNREFUSED),
// and while the socket stays open no other socket can bind the port (it
// is bound without SO_REUSEADDR, so even a listener that sets it, as Go's
// do, is refused) nor take it as an outgoing connection's ephemeral port.
// Picking a free port and closing it, as such helpers did, left the port
// to the next listener, possibly a parallel test's server, and a test of a
// refused connection then reached it. A listener that never accepts would
// not do either: the kernel completes the handshake into its backlog.
// The socket is closed when t ends.
func Closed(t testing.TB) string {
	t.Helper()
	return reserve(t, false)
}

// reserve binds a TCP socket to a free 127.0.0.1 port, with SO_REUSEADDR
// when reuseAddr, holds it unlistened until t ends and returns its
// address.
func reserve(t testing.TB, reuseAddr bool) string {
	t.Helper()
	// As package net does, create and mark close-on-exec under ForkLock,
	// so a command the test starts does not inherit the socket.
	syscall.ForkLock.RLock()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	t.Cleanup(func() { _ = syscall.Close(fd) })
	// Every step runs and any failure fails the test once (a step after a
	// failed one fails too, on the bad descriptor: no harm).
	errs := []error{err}
	if reuseAddr {
		errs = append(errs, syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1))
	}
	errs = append(errs, syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}))
	sa, err := syscall.Getsockname(fd)
	in4, _ := sa.(*syscall.SockaddrInet4)
	if err := errors.Join(append(errs, err)...); err != nil || in4 == nil || in4.Port == 0 {
		t.Fatalf("rawserver: reserving a 127.0.0.1 port (SO_REUSEADDR %v): %v; bound to %v", reuseAddr, err, sa)
	}
	return fmt.Sprintf("127.0.0.1:%d", in4.Port)
}
