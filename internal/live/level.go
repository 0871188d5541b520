package live

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/sweep"
)

// The per-level gauges, labelled mode and level: only the level running now
// has them, so a finished level's series end with it.
var (
	descInFlight    = levelDesc("toksweep_in_flight", "Requests sent and not yet back (warm-up included).")
	descKey         = levelDesc("toksweep_level_key", "The running level's key: an open-loop mode's load (mode rate: the offered req/s) or else its concurrency (mode closed, sessions).")
	descOffered     = levelDesc("toksweep_offered_rps", "Requests sent in the running level so far / seconds since it started (warm-up included).")
	descAchieved    = levelDesc("toksweep_achieved_rps", "Requests back in the running level so far, canceled ones left out / seconds since it started.")
	descDispatchMax = levelDesc("toksweep_dispatch_delay_max_seconds", "Worst dispatch delay Start - Sched of the running level's measured requests so far (open loop; 0 in a closed loop).")
	descLateMax     = levelDesc("toksweep_timer_late_max_seconds", "Worst lateness of the client's 50 ms timer probe in the running level so far (levels.csv timer_late_max).")
)

func levelDesc(name, help string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, []string{"mode", "level"}, nil)
}

// levelCollector exports the running level's gauges at each scrape.
type levelCollector struct{ m *Metrics }

var _ prometheus.Collector = levelCollector{}

func (c levelCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descInFlight, descKey, descOffered, descAchieved, descDispatchMax, descLateMax} {
		ch <- d
	}
}

func (c levelCollector) Collect(ch chan<- prometheus.Metric) {
	lv := c.m.cur.Load()
	if lv == nil {
		return // no level yet: no level to label them with
	}
	elapsed := max(time.Since(lv.start).Seconds(), 1e-9)
	gauge := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, lv.mode, lv.name)
	}
	gauge(descInFlight, float64(c.m.inFlight.Load()))
	gauge(descKey, lv.key)
	gauge(descOffered, float64(lv.started.Load())/elapsed)
	gauge(descAchieved, float64(lv.finished.Load())/elapsed)
	gauge(descDispatchMax, time.Duration(lv.dispatchMax.Load()).Seconds())
	gauge(descLateMax, time.Duration(lv.lateMax.Load()).Seconds())
}

// Doer wraps d so that m sees each request leave and come back: the
// in-flight gauge and the rate gauges. It passes connection warm-up
// through, and preparation (sweep.Preparer) where d has it: hidden, the
// sweep would build each request after its instant.
func (m *Metrics) Doer(d sweep.Doer) sweep.Doer {
	if m == nil {
		return d
	}
	if _, ok := d.(sweep.Preparer); ok {
		return preparer{doer{Doer: d, m: m}}
	}
	return doer{Doer: d, m: m}
}

type doer struct {
	sweep.Doer
	m *Metrics
}

var _ sweep.Warmer = doer{}

func (d doer) Do(ctx context.Context, p client.Prompt) client.Record {
	return d.round(func() client.Record { return d.Doer.Do(ctx, p) })
}

// round counts the request that do sends in flight, and the level's rates.
func (d doer) round(do func() client.Record) client.Record {
	lv := d.m.cur.Load()
	if lv != nil {
		lv.started.Add(1)
	}
	d.m.inFlight.Add(1)
	r := do()
	d.m.inFlight.Add(-1)
	if lv != nil && r.ErrorClass != client.Canceled {
		lv.finished.Add(1)
	}
	return r
}

// preparer is doer around a sweep.Preparer, which it forwards: without it
// the sweep would build each request after its instant (Metrics.Doer).
type preparer struct{ doer }

var _ sweep.Preparer = preparer{}

func (d preparer) Prepare(ctx context.Context, p client.Prompt) *client.Prepared {
	return d.Doer.(sweep.Preparer).Prepare(ctx, p)
}

func (d preparer) Send(ctx context.Context, pr *client.Prepared) client.Record {
	return d.round(func() client.Record { return d.Doer.(sweep.Preparer).Send(ctx, pr) })
}

// WarmConns implements sweep.Warmer when the wrapped Doer does.
func (d doer) WarmConns(ctx context.Context, n int) error {
	if w, ok := d.Doer.(sweep.Warmer); ok {
		return w.WarmConns(ctx, n)
	}
	return nil
}
