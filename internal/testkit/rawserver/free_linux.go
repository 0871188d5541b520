package rawserver

import "testing"

// Free is a loopback address ("127.0.0.1:PORT") for the code under test
// to listen on (serve-sim --addr, sweep --listen), kept for it until the
// test t ends.
//
// It holds a socket bound to the port with SO_REUSEADDR and never
// listening. On Linux a listener that sets SO_REUSEADDR too, as every Go
// listener does, may bind a port whose other sockets all set it and none
// listens, so the code under test binds it; but a port asked for as 0, by
// a listener or an outgoing connection, is never one already bound, so no
// other test's server or client takes it meanwhile. Picking a free port
// and closing it, as the tests' helpers did, left the port to anyone
// between the close and the code's bind, and a test could then reach
// another test's server. Until the code listens, a connection is
// refused; once one listener has it, a second cannot bind it.
func Free(t testing.TB) string {
	t.Helper()
	return reserve(t, true)
}
