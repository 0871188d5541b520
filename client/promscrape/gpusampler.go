package promscrape

import (
	"cmp"
	"context"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"
)

// GPUSampler scrapes dcgm-exporter endpoints, one per GPU host, during a
// level, on Sampler's schedule (gap). Its zero value is not usable: set
// URLs. No header is sent: a GPU host never receives the API's
// credentials.
type GPUSampler struct {
	URLs     []string
	Interval time.Duration // between in-level scrapes; 0 means DefaultInterval
	Timeout  time.Duration // per scrape; 0 means DefaultTimeout
	Client   *http.Client  // nil means http.DefaultClient; redirects are never followed
}

// Scrape fetches and reads one endpoint once.
func (s *GPUSampler) Scrape(ctx context.Context, url string) ([]GPUReading, error) {
	sm := Sampler{URL: url, Timeout: s.Timeout, Client: s.Client}
	var gpus []GPUReading
	err := fetch(ctx, &sm, func(r io.Reader) (err error) {
		gpus, err = ParseGPUs(r)
		return err
	})
	return gpus, err
}

// Start takes every endpoint's opening scrape, then scrapes them in the
// background until stop is called, as Sampler.Start does; stop takes the
// closing scrapes and returns the level's telemetry, after any in-level
// scrape under way has ended (within Timeout), so that every scrape the
// endpoint served is counted. A failed scrape is counted, never returned.
func (s *GPUSampler) Start(ctx context.Context) (stop func() *GPUMetrics) {
	runs := make([]*gpuRun, len(s.URLs))
	var wg sync.WaitGroup
	for i, u := range s.URLs {
		runs[i] = &gpuRun{s: s, url: u, gpus: map[string]*GPU{}}
		wg.Go(func() { runs[i].open(ctx) })
	}
	wg.Wait()
	stopping := make(chan struct{})
	for _, r := range runs {
		wg.Go(func() { r.sample(ctx, stopping) })
	}
	return func() *GPUMetrics {
		close(stopping)
		wg.Wait()
		for _, r := range runs {
			wg.Go(func() { r.close(context.WithoutCancel(ctx)) })
		}
		wg.Wait()
		m := &GPUMetrics{Endpoints: len(s.URLs)}
		for _, r := range runs {
			r.into(m)
		}
		return m
	}
}

// gpuRun is one endpoint's scrapes of a level; one goroutine owns it at a
// time.
type gpuRun struct {
	s               *GPUSampler
	url             string
	opening         []GPUReading
	openAt          time.Time
	gpus            map[string]*GPU
	order           []string
	scrapes, failed int
	err             string
}

func (r *gpuRun) fail(err error) {
	if r.failed == 0 {
		r.err = err.Error()
	}
	r.failed++
}

// stamped scrapes the endpoint once, stamped at the midpoint of its round
// trip: the instant the server read its figures, give or take half of it.
func (r *gpuRun) stamped(ctx context.Context) ([]GPUReading, time.Time, error) {
	t0 := time.Now()
	g, err := r.s.Scrape(ctx, r.url)
	return g, t0.Add(time.Since(t0) / 2), err
}

func (r *gpuRun) open(ctx context.Context) {
	g, at, err := r.stamped(ctx)
	if err != nil {
		r.fail(err)
		return
	}
	r.opening, r.openAt = g, at
	for i := range g {
		r.gpu(&g[i])
	}
}

func (r *gpuRun) sample(ctx context.Context, stopping <-chan struct{}) {
	interval := cmp.Or(r.s.Interval, DefaultInterval)
	start := time.Now()
	t := time.NewTimer(gap(0, interval))
	defer t.Stop()
	for {
		select {
		case <-stopping: // first: a stop during a slow scrape takes no other
			return
		default:
		}
		select {
		case <-ctx.Done():
			return
		case <-stopping:
			return
		case <-t.C:
		}
		t.Reset(gap(time.Since(start), interval))
		g, err := r.s.Scrape(ctx, r.url) // a scrape under way when stop is called ends first
		switch {
		case ctx.Err() != nil:
			return // canceled mid-scrape: not a failure
		case err != nil:
			r.fail(err)
		default:
			r.scrapes++
			for i := range g {
				r.gpu(&g[i]).add(&g[i])
			}
		}
	}
}

func (r *gpuRun) close(ctx context.Context) {
	g, at, err := r.stamped(ctx)
	if err != nil {
		r.fail(err)
		return
	}
	for i := range g {
		gpu := r.gpu(&g[i])
		if r.opening == nil {
			continue
		}
		gpu.Span = at.Sub(r.openAt)
		j := slices.IndexFunc(r.opening, func(o GPUReading) bool { return o.ID == g[i].ID })
		if j >= 0 {
			gpu.Energy = increase(r.opening[j].Energy, g[i].Energy)
		}
	}
}

// gpu is the level's record of the GPU a reading is of, made at its first
// reading.
func (r *gpuRun) gpu(g *GPUReading) *GPU {
	if x, ok := r.gpus[g.ID]; ok {
		return x
	}
	x := &GPU{ID: g.ID, Host: g.Host, Index: g.GPU, Endpoint: ShowURL(r.url)}
	r.gpus[g.ID] = x
	r.order = append(r.order, g.ID)
	return x
}

func (r *gpuRun) into(m *GPUMetrics) {
	m.Scrapes += r.scrapes
	if r.failed > 0 && m.Failures == 0 {
		m.Error = r.err
	}
	m.Failures += r.failed
	if len(r.order) == 0 {
		m.Unseen = append(m.Unseen, ShowURL(r.url))
	}
	for _, id := range r.order {
		m.GPUs = append(m.GPUs, *r.gpus[id])
	}
}
