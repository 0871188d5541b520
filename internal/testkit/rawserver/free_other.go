//go:build !linux

package rawserver

import "testing"

// Free is a loopback address ("127.0.0.1:PORT") for the code under test
// to listen on. Off Linux it is a free port picked and closed at once
// (SO_REUSEADDR does not let a second socket bind the very address there,
// as free_linux.go relies on), so another listener may take it before the
// code binds.
func Free(t testing.TB) string {
	t.Helper()
	return pickAndClose(t)
}
