package live

import (
	"runtime"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// Labels are the run's constant labels.
type Labels struct {
	RunID string // the run directory's name
	Shard string // "i/N" of a sharded run, "0/1" otherwise
	Model string
	// Classes, when set, adds the label "class" (the request's traffic
	// class, sweep --class: at most sweep.MaxClasses values) to every
	// per-request family.
	Classes bool
}

// LatencyBuckets are the classic histogram buckets of every latency family,
// in seconds: 0.5 ms to 10 minutes, each 1.62× the last, fit for ITL and
// TPOT (milliseconds) as for e2e latency (minutes). The families are native
// histograms too (factor 1.1), for a Prometheus that scrapes them.
var LatencyBuckets = prometheus.ExponentialBucketsRange(0.0005, 600, 30)

// Metrics is one run's live figures. Its methods are safe for concurrent
// use; a nil *Metrics does nothing.
type Metrics struct {
	reg *prometheus.Registry

	ttft, tpot, itl, e2e *prometheus.HistogramVec
	requests             *prometheus.CounterVec
	inTokens, outTokens  *prometheus.CounterVec

	classes  bool // Labels.Classes
	inFlight atomic.Int64
	cur      atomic.Pointer[level] // the level running now; nil before the first
	done     func() float64        // the share of the run done; nil: unknown
}

// level is the live state of the level running now.
type level struct {
	mode, name string
	key        float64
	start      time.Time
	started    atomic.Int64 // requests sent (warm-up included)
	finished   atomic.Int64 // requests back, canceled ones left out
	// worst dispatch delay of a measured request and worst timer lateness
	// so far in the level, in nanoseconds. The other fields are set before
	// the level is published and never change.
	dispatchMax, lateMax atomic.Int64
}

// New returns the metrics of one run; done, when not nil, is the share of
// the run done so far (0 to 1), read at each scrape.
func New(l Labels, done func() float64) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), done: done, classes: l.Classes}
	r := prometheus.WrapRegistererWith(prometheus.Labels{"run_id": l.RunID, "shard": l.Shard, "model": l.Model}, m.reg)
	byLevel := []string{"mode", "level"}
	if l.Classes {
		byLevel = append(byLevel, "class")
	}
	hist := func(name, help string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: name, Help: help, Buckets: LatencyBuckets,
			NativeHistogramBucketFactor: 1.1, NativeHistogramMaxBucketNumber: 160,
		}, byLevel)
	}
	m.ttft = hist("toksweep_ttft_seconds", "Time to first token of successful measured requests (levels.csv ttft_*).")
	m.tpot = hist("toksweep_tpot_seconds", "TPOT (End - FirstToken) / (U - 1) of successful measured requests with U >= 2 (levels.csv tpot_*).")
	m.itl = hist("toksweep_itl_seconds", "Inter-token latency: each gap between token chunks over the tokens a chunk carries, successful measured requests.")
	m.e2e = hist("toksweep_e2e_latency_seconds", "End-to-end latency End - Origin of successful measured requests (levels.csv e2e_latency_*).")
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "toksweep_requests_total", Help: "Measured requests finished, by outcome: ok or the error class."}, append(byLevel, "outcome"))
	m.inTokens = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "toksweep_input_tokens_total", Help: "Usage prompt_tokens of successful measured requests."}, byLevel)
	m.outTokens = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "toksweep_output_tokens_total", Help: "Output tokens U of successful measured requests."}, byLevel)
	r.MustRegister(m.ttft, m.tpot, m.itl, m.e2e, m.requests, m.inTokens, m.outTokens, levelCollector{m})
	r.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "toksweep_client_cpu_seconds_total", Help: "User and system CPU time of the toksweep process."},
		func() float64 { return sweep.ProcessCPU().Seconds() }))
	r.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "toksweep_client_cpu_cores", Help: "Cores the client may use (GOMAXPROCS)."},
		func() float64 { return float64(runtime.GOMAXPROCS(0)) }))
	if done != nil {
		r.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "toksweep_run_done_ratio", Help: "Share of the run's planned level runs done, the current one counted by its progress."}, done))
	}
	return m
}

// Gatherer is what the endpoint serves.
func (m *Metrics) Gatherer() prometheus.Gatherer { return m.reg }

// levelOf is the mode, name and key of level l: its registered mode
// (sweep.LevelKey.Mode), its name as everywhere else (report.LevelName),
// and the number it is keyed by, an open-loop mode's load (a rate, a
// speed) or else its concurrency.
func levelOf(l sweep.Level) (mode, name string, key float64) {
	k := l.Key()
	name = report.LevelName(report.LevelStats{Concurrency: l.Concurrency, Rate: l.Rate, Repeat: l.Repeat})
	if k.IsOpen() {
		return k.Mode, name, k.Load
	}
	return k.Mode, name, float64(k.Concurrency)
}

// Metrics is a sweep.Observer.
var _ sweep.Observer = (*Metrics)(nil)

// LevelStarted is sweep.Observer's: a new level is running.
func (m *Metrics) LevelStarted(l sweep.Level, _ int) {
	if m == nil {
		return
	}
	lv := &level{start: time.Now()}
	lv.mode, lv.name, lv.key = levelOf(l)
	m.cur.Store(lv)
}

// labels are the mode and level labels of record r: the running level's
// (a level's records all finish before the next starts), or, before any
// level, those its key gives.
func (m *Metrics) labels(r *client.Record) (mode, name string) {
	if lv := m.level(); lv != nil {
		return lv.mode, lv.name
	}
	mode, name, _ = levelOf(sweep.Level{Concurrency: r.Concurrency, Rate: r.Rate, Repeat: r.Repeat})
	return mode, name
}

// TimerLate is sweep.Observer's: one tick's lateness of the timer probe.
func (m *Metrics) TimerLate(d time.Duration) {
	if lv := m.level(); lv != nil {
		storeMax(&lv.lateMax, int64(d))
	}
}

func (m *Metrics) level() *level {
	if m == nil {
		return nil
	}
	return m.cur.Load()
}

// RequestDone is sweep.Observer's: it adds a finished measured request to
// the figures (a warm-up request only to the in-flight and rate gauges,
// through the Doer). It does not keep r.
func (m *Metrics) RequestDone(r *client.Record) {
	if m == nil || r.Warmup {
		return
	}
	mode, name := m.labels(r)
	by := []string{mode, name}
	if m.classes {
		by = append(by, r.Class)
	}
	outcome := "ok"
	if !r.OK() {
		outcome = string(r.ErrorClass)
	}
	m.requests.WithLabelValues(append(by, outcome)...).Inc()
	if lv := m.level(); lv != nil && r.Sched != 0 {
		storeMax(&lv.dispatchMax, int64(r.Start-r.Sched))
	}
	if !r.OK() {
		return
	}
	m.inTokens.WithLabelValues(by...).Add(float64(r.PromptTokens))
	m.outTokens.WithLabelValues(by...).Add(float64(r.OutputTokens()))
	if d := report.RequestTTFT(r); d != report.NoSample {
		m.ttft.WithLabelValues(by...).Observe(d.Seconds())
	}
	if d := report.RequestTPOT(r); d != report.NoSample {
		m.tpot.WithLabelValues(by...).Observe(d.Seconds())
	}
	if r.End > r.Origin() {
		m.e2e.WithLabelValues(by...).Observe((r.End - r.Origin()).Seconds())
	}
	itl := m.itl.WithLabelValues(by...)
	for g := range report.RequestITL(r) {
		itl.Observe(g.Seconds())
	}
}

// storeMax raises *a to v.
func storeMax(a *atomic.Int64, v int64) {
	for {
		old := a.Load()
		if v <= old || a.CompareAndSwap(old, v) {
			return
		}
	}
}
