package sim

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Server is one simulated OpenAI-compatible server. New starts its
// scheduler; Close stops it. Serve it with Start, or mount Handler in a
// server of your own (httptest, say) and still call Close.
type Server struct {
	cfg     Config
	eng     *engine
	met     *metrics
	mux     *http.ServeMux
	created int64         // Unix seconds, reported by /v1/models and in chunks' ids
	ids     atomic.Uint64 // request ids
	held    atomic.Int64  // generation requests past their fate's draw, not yet answered (overhead.go)

	timeouts timeouts // of the HTTP server Start runs

	arrivals arrivalLog // when RecordArrivals

	rngMu sync.Mutex // guards rng
	rng   *rand.Rand // failure injection draws

	mu        sync.Mutex // guards srv, serveDone, stopCtx
	srv       *http.Server
	serveDone chan struct{}
	stopCtx   func() bool
	closeOnce sync.Once
	closeErr  error
}

// New validates cfg (after filling its zero-value defaults) and returns a
// Server whose scheduler is already running.
func New(cfg Config) (*Server, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	met := newMetrics()
	met.spec = cfg.DraftTokens > 0
	s := &Server{
		cfg:     cfg,
		met:     met,
		created: time.Now().Unix(),
		rng:     rand.New(rand.NewPCG(uint64(cfg.Seed), 0xfa11)),

		timeouts: defaultTimeouts,
	}
	s.mux = s.routes()
	s.eng = newEngine(cfg, met)
	return s, nil
}

// Config returns the configuration the server runs with, defaults filled in.
func (s *Server) Config() Config { return s.cfg }

// Handler returns the server's HTTP handler. An injected disconnect
// (Config.DisconnectRate) aborts its stream with panic(http.ErrAbortHandler),
// which net/http turns into a dropped connection.
func (s *Server) Handler() http.Handler { return s.mux }

// Start listens on addr ("127.0.0.1:0" picks a free port) and serves in the
// background until Close is called or ctx is canceled. It returns the
// address actually listened on.
func (s *Server) Start(ctx context.Context, addr string) (net.Addr, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv != nil || s.eng.isClosed() {
		ln.Close()
		return nil, errors.New("sim: Start called twice or after Close")
	}
	t := s.timeouts
	s.srv = &http.Server{Handler: s.mux, ReadHeaderTimeout: t.header, ReadTimeout: t.read, IdleTimeout: t.idle}
	s.serveDone = make(chan struct{})
	go func(srv *http.Server, done chan struct{}) {
		defer close(done)
		_ = srv.Serve(ln) // always ErrServerClosed or a listener error after Close
	}(s.srv, s.serveDone)
	s.stopCtx = context.AfterFunc(ctx, func() { _ = s.Close() })
	return ln.Addr(), nil
}

// timeouts are the HTTP server's: a client that trickles its headers or
// body, or leaves a connection idle, cannot hold it forever. There is no
// write timeout: a stream lasts as long as its output does.
type timeouts struct {
	header time.Duration // to read the request headers
	read   time.Duration // to read the whole request, body included
	idle   time.Duration // a keep-alive connection between requests
}

var defaultTimeouts = timeouts{header: 10 * time.Second, read: time.Minute, idle: 2 * time.Minute}

// Close stops the scheduler, the listener and every open connection, and
// waits for the scheduler and the serving goroutine to exit. Streams still
// open end without [DONE]. It is safe to call more than once, concurrently.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		srv, done, stop := s.srv, s.serveDone, s.stopCtx
		s.mu.Unlock()
		if stop != nil {
			stop()
		}
		s.eng.close()
		if srv != nil {
			s.closeErr = srv.Close()
			<-done
		}
	})
	return s.closeErr
}

// Stats returns a snapshot of the engine's state and counters.
func (s *Server) Stats() Stats {
	st := s.met.stats()
	st.Running, st.Waiting = int(s.eng.nRunning.Load()), s.eng.waitingLen()
	return st
}

func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/models", only(http.MethodGet, s.handleModels))
	mux.HandleFunc("/health", only(http.MethodGet, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusOK)
	}))
	mux.HandleFunc("/metrics", only(http.MethodGet, s.handleMetrics))
	mux.HandleFunc("/gpu/metrics", only(http.MethodGet, s.handleGPUMetrics))
	mux.HandleFunc("/v1/chat/completions", only(http.MethodPost, s.generate(chatAPI)))
	mux.HandleFunc("/v1/completions", only(http.MethodPost, s.generate(completionsAPI)))
	if s.cfg.RecordArrivals {
		mux.HandleFunc("/debug/arrivals", only(http.MethodGet, s.handleArrivals))
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]string{"detail": "Not Found"}) // FastAPI's 404
	})
	return mux
}

// only wraps h so that any other method gets a 405.
func only(method string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != method && !(method == http.MethodGet && r.Method == http.MethodHead) {
			methodNotAllowed(w, method)
			return
		}
		h(w, r)
	}
}

// modelCard is one entry of /v1/models, as vLLM writes it: an adapter's
// parent is the base model, and it has no max_model_len.
type modelCard struct {
	ID          string  `json:"id"`
	Object      string  `json:"object"`
	Created     int64   `json:"created"`
	OwnedBy     string  `json:"owned_by"`
	Root        string  `json:"root"`
	Parent      *string `json:"parent"`
	MaxModelLen *int    `json:"max_model_len"`
}

func (s *Server) handleModels(w http.ResponseWriter, _ *http.Request) {
	base := modelCard{ID: s.cfg.Model, Object: "model", Created: s.created, OwnedBy: "toksweep-sim",
		Root: s.cfg.Model, MaxModelLen: &s.cfg.MaxModelLen}
	cards := []modelCard{base}
	for _, a := range s.cfg.Adapters {
		cards = append(cards, modelCard{ID: a.Name, Object: "model", Created: s.created, OwnedBy: "toksweep-sim",
			Root: a.Name, Parent: &s.cfg.Model})
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": cards})
}

func (s *Server) handleMetrics(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	_ = s.met.write(w, s.cfg.Model, int(s.eng.nRunning.Load()), s.eng.waitingLen())
}
