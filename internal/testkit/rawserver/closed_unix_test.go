//go:build unix

package rawserver

import (
	"errors"
	"net"
	"syscall"
	"testing"
	"time"
)

// TestClosedStaysClosed: Closed's port refuses connections and cannot be
// bound by a listener (Go's set SO_REUSEADDR) while the test lives, even
// with many other listeners opened meanwhile, and is free again once the
// test ends.
func TestClosedStaysClosed(t *testing.T) {
	var addr string
	t.Run("while the test lives", func(t *testing.T) {
		addr = Closed(t)
		refused := func(when string) {
			t.Helper()
			c, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err == nil {
				c.Close()
				t.Fatalf("%s: a connection to %s was accepted", when, addr)
			}
			if !errors.Is(err, syscall.ECONNREFUSED) {
				t.Errorf("%s: dial %s: %v, want connection refused", when, addr, err)
			}
		}
		refused("at once")
		if ln, err := net.Listen("tcp", addr); err == nil {
			ln.Close()
			t.Fatalf("a listener could bind %s", addr)
		}
		// Listeners on free ports never get it, nor do the connections
		// to them (their ephemeral ports).
		notHandedOut(t, addr, 200)
		refused("after 200 other listeners")
	})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("once the test ended, %s is still held: %v", addr, err)
	}
	ln.Close()
}

// notHandedOut opens n listeners on free ports, each with a connection to
// it, and fails if any of them, or a connection's ephemeral port, is addr.
func notHandedOut(t *testing.T, addr string, n int) {
	t.Helper()
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		if ln.Addr().String() == addr || c.LocalAddr().String() == addr {
			t.Fatalf("%s was handed out while held", addr)
		}
		c.Close()
		ln.Close()
	}
}
