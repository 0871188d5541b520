package simtest

import (
	"context"
	"fmt"

	"github.com/toksweep/toksweep/sim"
)

// Server is a started simulator.
type Server struct {
	*sim.Server
	// URL is the server's root, http://127.0.0.1:PORT, with no trailing
	// slash; the OpenAI-compatible API is under URL + "/v1".
	URL string
}

// NewServer starts a simulator with cfg on 127.0.0.1 and returns it. Like
// httptest.NewServer it panics when it cannot (here: also when sim.New
// refuses cfg), since a test cannot go on without its server. The caller
// must call Close.
func NewServer(cfg sim.Config) *Server {
	s, err := sim.New(cfg)
	if err != nil {
		panic(fmt.Sprintf("simtest: %v", err))
	}
	addr, err := s.Start(context.Background(), "127.0.0.1:0")
	if err != nil {
		_ = s.Close()
		panic(fmt.Sprintf("simtest: %v", err))
	}
	return &Server{Server: s, URL: "http://" + addr.String()}
}

// Close stops the simulator and waits for it (see sim.Server.Close). Like
// httptest.Server.Close it returns nothing, so that it can be deferred or
// passed to t.Cleanup as it is.
func (s *Server) Close() { _ = s.Server.Close() }
