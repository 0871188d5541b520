package app

import (
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/internal/live"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// liveSettings are the flags about watching and gating a run: the metrics
// endpoint and the SLO exit status.
type liveSettings struct {
	Listen         string // --listen ADDR; "" off
	FailOnSLO      bool   // --fail-on-slo: exit 3 when a level fails the SLO
	AbortOnSLOFail bool   // --abort-on-slo-fail: and stop the sweep at that level

	ln net.Listener // --listen's, bound by listen before the run directory
}

// listen binds --listen's address, if any, so that a port in use is a
// one-line error before the run directory is touched; the returned func
// releases it when the endpoint never started.
func (l *liveSettings) listen() (release func(), err error) {
	if l.Listen == "" {
		return func() {}, nil
	}
	if l.ln, err = live.Listen(l.Listen); err != nil {
		return nil, fmt.Errorf("--listen %s: %w", l.Listen, err)
	}
	ln := l.ln
	return func() { _ = ln.Close() }, nil // closing a served listener again is harmless
}

func liveFlags(o *options) []cli.Flag {
	l := &o.Live
	return []cli.Flag{
		&cli.StringFlag{Name: "listen", Destination: &l.Listen, Usage: "serve the run's live figures on http://ADDR/metrics (Prometheus); a bare :PORT binds 127.0.0.1"},
		&cli.BoolFlag{Name: "fail-on-slo", Destination: &l.FailOnSLO, Usage: "exit 3 when a level fails the --slo-* objective (the files are written in full first)"},
		&cli.BoolFlag{Name: "abort-on-slo-fail", Destination: &l.AbortOnSLOFail, Usage: "like --fail-on-slo, and stop the sweep at the first failing level"},
	}
}

// live checks the flags of liveSettings.
func (o *options) live() error {
	l := &o.Live
	if l.AbortOnSLOFail {
		l.FailOnSLO = true
	}
	switch {
	case l.FailOnSLO && !o.SLO.Set():
		return usagef("--fail-on-slo and --abort-on-slo-fail need an objective: give at least one --slo-* flag, e.g. --slo-ttft-p95 2s")
	case l.FailOnSLO && o.searched():
		return usagef("--fail-on-slo and --abort-on-slo-fail judge fixed levels; an auto search runs failing levels by design")
	}
	if l.Listen != "" {
		if _, port, err := net.SplitHostPort(live.ListenAddr(l.Listen)); err != nil || port == "" {
			return usagef("invalid --listen %q: want HOST:PORT or :PORT, e.g. :9464", l.Listen)
		}
	}
	return nil
}

// startLive starts the metrics endpoint of --listen (bound by listen) and
// hooks it into cfg;
// stop closes it (after a last scrape, when the run was not interrupted).
func (r *sweepRun) startLive(cfg *sweep.Config, stderr io.Writer) (d func(sweep.Doer) sweep.Doer, stop func(interrupted bool)) {
	o := r.o
	if o.Live.Listen == "" {
		return func(d sweep.Doer) sweep.Doer { return d }, func(bool) {}
	}
	shard := "0/1"
	if o.Shard.Count > 0 {
		shard = fmt.Sprintf("%d/%d", o.Shard.Index, o.Shard.Count)
	}
	runs := o.plannedRuns()
	m := live.New(live.Labels{RunID: filepath.Base(o.Out), Shard: shard, Model: o.Model, Classes: len(o.Class.Classes) > 0}, func() float64 { return r.progress.ShareDone(runs) })
	srv := live.ServeOn(o.Live.ln, m)
	fmt.Fprintf(stderr, "toksweep: live metrics on http://%s/metrics\n", srv.Addr())
	cfg.Observer = sweep.Observers{cfg.Observer, m}
	return m.Doer, func(interrupted bool) { _ = srv.Close(!interrupted) }
}

// SLOFailure is the outcome of --fail-on-slo when a level failed the SLO:
// exit 3, with the first failing level named.
type SLOFailure struct {
	Level   string   // report.LevelName of the first failing level
	Failed  []string // its failing criteria, with the measured values
	Stopped bool     // --abort-on-slo-fail stopped the sweep there
	Out     string   // the run directory
}

func (e *SLOFailure) Error() string {
	how := "the files are complete in " + e.Out
	if e.Stopped {
		how = "the sweep stopped there (--abort-on-slo-fail); " + how
	}
	return fmt.Sprintf("SLO failed: first at level %s (%s); %s", e.Level, strings.Join(e.Failed, ", "), how)
}

// gate notes the first level that fails the SLO, under --fail-on-slo.
func (r *sweepRun) gate(s report.LevelStats, v report.SLOResult) {
	if !r.o.Live.FailOnSLO || v.Pass || r.sloFail != nil {
		return
	}
	r.sloFail = &SLOFailure{Level: report.LevelName(s), Failed: v.Failed, Stopped: r.o.Live.AbortOnSLOFail, Out: r.o.Out}
}
