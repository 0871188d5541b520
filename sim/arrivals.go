package sim

import (
	"slices"
	"sync"
	"time"
)

// MaxArrivals bounds the arrivals a Server keeps (Config.RecordArrivals).
const MaxArrivals = 1 << 20

// arrivalLog is the instants generation requests reached their handler.
type arrivalLog struct {
	mu sync.Mutex
	at []time.Time
}

func (l *arrivalLog) add(t time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.at) < MaxArrivals {
		l.at = append(l.at, t)
	}
}

// Arrivals returns the wall-clock instants (with their monotonic reading)
// at which generation requests reached the server's handler, in order,
// when Config.RecordArrivals is set: the server's stamps of when each
// request arrived, to check a load generator's schedule against.
func (s *Server) Arrivals() []time.Time {
	s.arrivals.mu.Lock()
	defer s.arrivals.mu.Unlock()
	return slices.Clone(s.arrivals.at)
}
