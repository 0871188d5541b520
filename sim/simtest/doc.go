// Package simtest starts the built-in simulator for tests, as
// net/http/httptest starts a handler: NewServer returns a simulator already
// serving on a free loopback port, and the caller closes it.
package simtest
