//go:build !linux

package rawserver

import (
	"net"
	"testing"
)

// pickAndClose is a free 127.0.0.1 port, listened on and closed at once:
// Closed's and Free's fallback where a socket cannot hold the port.
func pickAndClose(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("rawserver: %v", err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}
