package sim

import (
	"net/http"
	"slices"
	"sync"
	"time"
)

// MaxArrivals bounds the arrivals a Server keeps (Config.RecordArrivals).
const MaxArrivals = 1 << 20

// arrivalLog is the instants generation requests reached their handler,
// and the client address each came from.
type arrivalLog struct {
	mu   sync.Mutex
	at   []time.Time
	from []string // from[i] sent at[i]
}

func (l *arrivalLog) addFrom(t time.Time, remote string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.at) < MaxArrivals {
		l.at = append(l.at, t)
		l.from = append(l.from, remote)
	}
}

// Arrival is one generation request's arrival: when it reached the
// handler, and the client's address (the connection's remote address,
// host:port), so that a client can tell which of its connections, and so
// which of its requests, each stamp belongs to.
type Arrival struct {
	At         time.Time
	RemoteAddr string
}

// ArrivalsFrom returns Arrivals with the address each came from, earliest
// first.
func (s *Server) ArrivalsFrom() []Arrival {
	s.arrivals.mu.Lock()
	out := make([]Arrival, len(s.arrivals.at))
	for i, t := range s.arrivals.at {
		out[i] = Arrival{At: t, RemoteAddr: s.arrivals.from[i]}
	}
	s.arrivals.mu.Unlock()
	slices.SortStableFunc(out, func(a, b Arrival) int { return a.At.Compare(b.At) })
	return out
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
	from := s.ArrivalsFrom()
	at := make([]time.Time, len(from))
	for i, a := range from {
		at[i] = a.At
	}
	return at
}

// ArrivalsReply is GET /debug/arrivals' body, served only when
// Config.RecordArrivals is set (serve-sim --record-arrivals): Arrivals as
// wall-clock Unix nanoseconds, earliest first, for a load generator in
// another process to read its schedule against. Both processes read the
// same system clock; the monotonic readings stay in this one. RemoteAddrs
// are the addresses they came from (ArrivalsFrom), in the same order.
type ArrivalsReply struct {
	UnixNano    []int64  `json:"arrivals_unix_nano"`
	RemoteAddrs []string `json:"remote_addrs"`
}

func (s *Server) handleArrivals(w http.ResponseWriter, _ *http.Request) {
	at := s.ArrivalsFrom()
	r := ArrivalsReply{UnixNano: make([]int64, len(at)), RemoteAddrs: make([]string, len(at))}
	for i, a := range at {
		r.UnixNano[i], r.RemoteAddrs[i] = a.At.UnixNano(), a.RemoteAddr
	}
	writeJSON(w, http.StatusOK, r)
}
