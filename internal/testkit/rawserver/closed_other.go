//go:build !unix

package rawserver

import "testing"

// Closed is a loopback address ("127.0.0.1:PORT") where nothing listens.
// Off unix it is a free port picked and closed at once, which another
// listener may take before the test connects; on unix (closed_unix.go) the
// port stays reserved and refusing for the whole test.
func Closed(t testing.TB) string {
	t.Helper()
	return pickAndClose(t)
}
