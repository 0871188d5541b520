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
// at which generation requests reached the server's handler, earliest
// first, when Config.RecordArrivals is set: the server's stamps of when
// each request arrived, to check a load generator's schedule against.
//
// They are sorted here, not kept in order: a handler reads the clock
// before it takes the log's lock, and one preempted between the two (on a
// busy machine, for tens of milliseconds) appends its stamp after later
// ones.
func (s *Server) Arrivals() []time.Time {
	s.arrivals.mu.Lock()
	at := slices.Clone(s.arrivals.at)
	s.arrivals.mu.Unlock()
	slices.SortFunc(at, func(a, b time.Time) int { return a.Compare(b) })
	return at
}
