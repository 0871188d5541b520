package live

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
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
	srv     *http.Server
	ln      net.Listener
	scrapes atomic.Int64
}

// Listen binds ListenAddr(addr), for ServeOn: a port in use fails before
// anything else starts.
func Listen(addr string) (net.Listener, error) {
	return net.Listen("tcp", ListenAddr(addr))
}

// ServeOn serves m's /metrics on ln until Close.
func ServeOn(ln net.Listener, m *Metrics) *Server {
	s := &Server{ln: ln}
	h := promhttp.HandlerFor(m.Gatherer(), promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
	mux := http.NewServeMux()
	mux.Handle("/metrics", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		s.scrapes.Add(1)
	}))
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s
}

// Addr is the address the endpoint listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Close stops the endpoint. When wait is set and the endpoint was scraped
// before, it first waits (at most FinalScrapeWait) for one more scrape, so
// that the scraper holds the run's final figures.
func (s *Server) Close(wait bool) error {
	if n := s.scrapes.Load(); wait && n > 0 {
		deadline := time.Now().Add(FinalScrapeWait)
		for s.scrapes.Load() == n && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
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
