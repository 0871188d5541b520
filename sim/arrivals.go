package sim

import (
	"net/http"
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

// ArrivalsReply is GET /debug/arrivals' body, served only when
// Config.RecordArrivals is set (serve-sim --record-arrivals): Arrivals as
// wall-clock Unix nanoseconds, earliest first, for a load generator in
// another process to read its schedule against. Both processes read the
// same system clock; the monotonic readings stay in this one.
type ArrivalsReply struct {
	UnixNano []int64 `json:"arrivals_unix_nano"`
}

func (s *Server) handleArrivals(w http.ResponseWriter, _ *http.Request) {
	at := s.Arrivals()
	r := ArrivalsReply{UnixNano: make([]int64, len(at))}
	for i, t := range at {
		r.UnixNano[i] = t.UnixNano()
	}
	writeJSON(w, http.StatusOK, r)
}
