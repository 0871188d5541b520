package rawserver

import (
	"errors"
	"net"
	"syscall"
	"testing"
)

// TestFreeIsKeptForTheCode: Free's port refuses connections until a
// listener binds it, a Go listener can bind it (the code under test's),
// listeners and connections on free ports are never handed it, and once
// one listener has it a second cannot bind it.
func TestFreeIsKeptForTheCode(t *testing.T) {
	addr := Free(t)
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Fatalf("a connection to %s was accepted before anything listened", addr)
	} else if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dial %s: %v, want connection refused", addr, err)
	}
	notHandedOut(t, addr, 200)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("the code under test cannot listen on %s: %v", addr, err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Close()
		}
	}()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial %s once listened on: %v", addr, err)
	}
	c.Close()
	if ln2, err := net.Listen("tcp", addr); err == nil {
		ln2.Close()
		t.Fatalf("a second listener could bind %s", addr)
	}
}
