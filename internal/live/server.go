package live

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// FinalScrapeWait bounds how long Close keeps the endpoint up for a scraper
// to read the run's final figures; Close waits only when something scraped
// the endpoint before.
const FinalScrapeWait = 5 * time.Second

// ListenAddr is the address --listen ADDR binds: a bare ":PORT" is loopback
// (127.0.0.1:PORT), so that the endpoint is reachable from other hosts only
// when a host is named (0.0.0.0:PORT for all interfaces).
func ListenAddr(addr string) string {
	if strings.HasPrefix(addr, ":") {
		return "127.0.0.1" + addr
	}
	return addr
}

// Server serves one run's /metrics.
type Server struct {
	srv *http.Server
	ln  net.Listener
	// begun numbers the scrapes as they begin (1, 2, …); mu guards
	// finished, the highest number of a scrape that has finished, and
	// done, closed and replaced each time it rises.
	begun    atomic.Int64
	mu       sync.Mutex
	finished int64
	done     chan struct{}
}

// Listen binds ListenAddr(addr), for ServeOn: a port in use fails before
// anything else starts.
func Listen(addr string) (net.Listener, error) {
	return net.Listen("tcp", ListenAddr(addr))
}

// ServeOn serves m's /metrics on ln until Close.
func ServeOn(ln net.Listener, m *Metrics) *Server {
	s := &Server{ln: ln, done: make(chan struct{})}
	h := promhttp.HandlerFor(m.Gatherer(), promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
	mux := http.NewServeMux()
	mux.Handle("/metrics", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := s.begun.Add(1)
		h.ServeHTTP(w, r)
		s.finish(n)
	}))
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s
}

// Addr is the address the endpoint listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// finish records that scrape n has finished.
func (s *Server) finish(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n > s.finished {
		s.finished = n
		close(s.done)
		s.done = make(chan struct{})
	}
}

// finishedAfter reports whether a scrape numbered above n has finished,
// and else returns a channel closed when the next one does.
func (s *Server) finishedAfter(n int64) (bool, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.finished > n, s.done
}

// Close stops the endpoint. When wait is set and the endpoint was scraped
// before, it first waits (at most FinalScrapeWait) for a scrape that began
// after Close was called to finish, so that the scraper holds the run's
// final figures: a scrape already under way may have gathered them before
// the end.
func (s *Server) Close(wait bool) error {
	if n := s.begun.Load(); wait && n > 0 {
		deadline := time.After(FinalScrapeWait)
	loop:
		for {
			ok, next := s.finishedAfter(n)
			if ok {
				break
			}
			select {
			case <-next:
			case <-deadline:
				break loop
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.srv.Close()
	}
	return err
}
