// Package rawserver starts, for tests, a TCP server on 127.0.0.1 that
// answers every HTTP request with fixed bytes, which need not be HTTP at
// all: what a client does with a malformed reply cannot be tested with
// net/http/httptest, whose server always speaks HTTP. Like
// httptest.NewServer, New returns a started server and the caller closes
// it. Closed is the opposite: an address that refuses every connection for
// a test's whole life; Free is an address kept for the code under test to
// listen on.
package rawserver
