package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/client/preflight"
	"github.com/toksweep/toksweep/internal/progress"
	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/mode/steer"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/rundir"
	"github.com/toksweep/toksweep/sim"
	"github.com/toksweep/toksweep/sweep"
)

func sweepCommand(stdout, stderr io.Writer) *cli.Command {
	o := &options{}
	flags := sweepFlags(o)
	return &cli.Command{
		Name:               "sweep",
		Usage:              "run closed-loop load at increasing concurrency levels (or open-loop arrivals at --rates) and report per-level figures",
		UsageText:          "toksweep sweep --url http://HOST:PORT/v1 [flags]\ntoksweep sweep --sim [flags]",
		Flags:              flags,
		CustomHelpTemplate: helpTemplate(flags),
		OnUsageError:       onUsageError,
		Action: func(c *cli.Context) error {
			o.givenFlags = c.FlagNames()
			if err := o.parseOptions(c.Args()); err != nil {
				return err
			}
			return o.guardSecrets(stdout, stderr, func(stdout, stderr io.Writer) error {
				return runSweep(c.Context, o, stdout, stderr)
			})
		},
	}
}

// runSweep is the whole sweep job: start the simulator if asked, check the
// target, run the levels, write every level as it ends, and print the tables.
func runSweep(ctx context.Context, o *options, stdout, stderr io.Writer) error {
	for _, w := range o.Warnings {
		fmt.Fprintf(stderr, "toksweep: warning: %s\n", w)
	}
	if o.Shard.Count > 0 {
		if err := o.Shard.notPast(0, time.Now()); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "toksweep: %s\n", o.Shard.waitText(time.Now(), o.shardRuns()))
	}
	// The run directory is reserved first (a non-writable, non-empty or
	// busy --out fails before any request) but written only once the target
	// passed its checks: until then an earlier run in it is left untouched,
	// and a directory this run created is removed again (dir.Close).
	if err := o.fdLimitCheck(); err != nil {
		return err
	}
	release, err := o.Live.listen()
	if err != nil {
		return err
	}
	defer release()
	dir, err := reserveOut(o)
	if err != nil {
		return err
	}
	defer dir.Close()
	if o.Sim {
		stop, err := startSim(ctx, o, stderr)
		if err != nil {
			return err
		}
		defer stop()
	}
	o.streamed = new(atomic.Int64) // the live token count the progress line reads
	cl, err := checkTarget(ctx, o, stderr)
	if err != nil {
		return err
	}
	dir.Settings = o.settings()
	if err := dir.Begin(); err != nil {
		return err
	}
	runWriting.Store(true) // from here the sweep writes its partial level on an interrupt
	return sweepAndReport(ctx, cl, o, dir, stdout, stderr)
}

// checkTarget builds the client and runs the checks made before any load:
// the model, one real request, the server's metrics endpoint.
func checkTarget(ctx context.Context, o *options, stderr io.Writer) (*client.Client, error) {
	cl, err := client.New(o.clientConfig())
	if err != nil {
		return nil, &UsageError{Msg: err.Error()}
	}
	if o.Model == "" {
		if err := resolveModel(ctx, cl, o); err != nil {
			return nil, err
		}
		if cl, err = client.New(o.clientConfig()); err != nil {
			return nil, err
		}
	}
	if err := o.preflight(ctx, cl, o.Work.first(), stderr); err != nil {
		return nil, err
	}
	if err := o.Work.findMetrics(ctx, o, stderr); err != nil {
		return nil, err
	}
	if err := o.Work.findGPUs(ctx, o, stderr); err != nil {
		return nil, err
	}
	return cl, nil
}

// sweepAndReport runs the levels and writes everything out.
func sweepAndReport(ctx context.Context, cl *client.Client, o *options, dir *rundir.RunDir, stdout, stderr io.Writer) error {
	timing := newTiming(o, o.Work.Set.Prompts)
	run := &sweepRun{o: o, dir: dir, stderr: stderr, progress: progress.New(stderr, timing, o.streamed)}
	run.sum = report.Summary{
		Tool: "toksweep", Version: Version(), URL: redactURL(o.URL), Model: o.Model,
		Started: time.Now().UTC(), Config: o.runConfig(),
	}
	m := o.mode()
	m.Summary(&o.Line, &run.sum)
	run.grading = o.grading(&run.sum)
	// An in-progress summary.json (no levels, no finish time) from the start,
	// so that even a run killed during its first level leaves all three files.
	if err := dir.WriteSummary(run.sum); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "toksweep: sweeping %s (model %s) %s; results in %s\n", redactURL(o.URL), o.Model, o.levelsText(), o.Out)
	fmt.Fprintf(stderr, "toksweep: %s\n", timing.UpFront())
	cfg := sweep.Config{
		Requests: o.Requests, Duration: o.Duration, Warmup: o.Warmup, Repeat: o.Repeat, Prompt: o.Work.Set.Prompter(),
		Observer: run.progress, DrainTimeout: o.DrainTimeout, Classes: o.classDraw(),
		Sink: dir, // each record to disk as it finishes
	}
	cfg.Server = o.Work.serverSampler()
	run.mode = m.Start(ctx, mode.Start{Line: &o.Line, Client: cl, Stderr: stderr, Stats: &run.stats}, &cfg)
	if run.twin, run.steer = o.steered(ctx, m, &cfg, &run.stats, run.progress.Say); run.twin != nil {
		run.mode.Search = nil // the steered search's sentence replaces the mode's (finish)
	}
	shardDone := func() error { return nil }
	if o.Shard.Count > 0 {
		o.Shard.split(&cfg, m)
		var err error
		if cfg.BeforeLevel, shardDone, err = o.startShard(cl.Epoch()); err != nil {
			return err
		}
	}
	watch, stopLive := run.startLive(&cfg, stderr)
	defer func() { stopLive(ctx.Err() != nil) }() // after finish: the last scrape sees the whole run
	runErr := sweep.Run(ctx, cfg, warmWarner{Doer: watch(cl), warn: run.progress.Say}, run.level)
	var ab *sweep.AbortError
	if errors.As(runErr, &ab) {
		if h := preflight.ContextHint(ab.Message, o.MaxTokens); h != "" {
			ab.Message += " (" + h + ")"
		}
	}
	if err := shardDone(); err != nil && runErr == nil {
		runErr = err
	}
	run.progress.Stop()
	return run.finish(ctx, runErr, stdout)
}

// sweepRun is the state of one sweep command between levels.
type sweepRun struct {
	o        *options
	dir      *rundir.RunDir
	stderr   io.Writer
	progress *progress.Line
	stats    []report.LevelStats
	mode     mode.Run // what the chosen mode adds to the output
	sum      report.Summary
	sloFail  *SLOFailure // the first level that failed the SLO under --fail-on-slo
	grading  *grader     // --sim-model's grading (fitgrade.go); nil without one
	twin     *twin       // --twin's predictor (twin.go); nil without it
	steer    *steer.Load // --twin's steered search
}

// level summarises a finished level, judges it against the SLO and flushes
// it to disk before the next level starts.
func (r *sweepRun) level(l sweep.Level) error {
	s := report.Summarize(l, r.o.settings())
	if r.o.SLO.Set() {
		report.Judge(&s, r.o.SLO)
		r.gate(s, *s.SLO)
	}
	r.stats = append(r.stats, s)
	r.grading.add(&l, s, &r.sum) // before AddLevel, which hands the records on
	r.twin.add(&l, s, &r.sum)
	goesOn := l.EndReason == sweep.Completed || l.EndReason == sweep.Deadline
	line := levelLine(s) + r.o.levelNotes(s)
	if r.mode.Note != nil {
		line += r.mode.Note(l, s)
	}
	r.progress.LevelEnded(line, s.OfferedRPS, goesOn)
	if err := r.dir.AddLevel(l, s); err != nil {
		return err
	}
	r.sum.Levels = append(r.sum.Levels, report.NewLevelJSON(s)) // Finished stays zero: in progress
	if err := r.dir.WriteSummary(r.sum); err != nil {
		return err
	}
	if r.sloFail != nil && r.o.Live.AbortOnSLOFail {
		return r.sloFail // the level is on disk: the sweep stops here
	}
	return nil
}

// finish settles the run's outcome and writes what it leaves (runEnd):
// a run whose charts or report.html could not be written ends "failed"
// (exit 1), like one whose levels could not be.
func (r *sweepRun) finish(ctx context.Context, runErr error, stdout io.Writer) error {
	stopped := errors.As(runErr, new(*SLOFailure)) // --abort-on-slo-fail: the files are still written in full
	if stopped {
		runErr = nil
	}
	r.sum.EndReason = endReason(ctx, runErr)
	if stopped {
		r.sum.EndReason = "aborted"
	}
	r.sum.Finished = time.Now().UTC()
	if runErr == nil {
		// A run that delivered nothing fails, and its summary says so.
		if runErr = r.noResult(); runErr != nil {
			r.sum.EndReason = "failed"
		}
	}
	e := r.end()
	e.preface = r.mode.Preface
	if r.mode.Search != nil {
		if t, ok := r.mode.Search.(interface{ Cost() *report.TierSearchJSON }); ok {
			r.sum.TierSearch = t.Cost() // its sentence follows the tier table (runEnd)
		} else {
			e.closing = append(e.closing, r.mode.Search.Sentence())
		}
	}
	if r.mode.Closing != nil && len(r.stats) > 0 {
		e.closing = append(e.closing, r.mode.Closing(r.stats))
	}
	e.closing = append(e.closing, r.grading.lines(&r.sum)...)
	if r.twin != nil {
		r.sum.Twin = r.twin.account(r.steer, r.o.mode().Name(), &r.sum)
		e.closing = append(e.closing, r.sum.Twin.Sentence())
	}
	runErr = e.write(ctx, runErr, stdout)
	if errors.Is(runErr, ErrInterrupted) {
		return fmt.Errorf("%w; the finished levels and the partial one are in %s", runErr, r.o.Out)
	}
	if runErr == nil && r.sloFail != nil {
		return r.sloFail
	}
	return runErr
}

// end is what the run leaves (a sweep's or a merge's), its recommendation
// made.
func (r *sweepRun) end() *runEnd {
	recommend(&r.sum, r.stats, r.o.SLO)
	return &runEnd{out: r.o.Out, charts: r.o.Charts, slo: &r.o.SLO, sum: &r.sum, stats: r.stats,
		writeSummary: r.dir.WriteSummary, scrub: r.o.scrubber(), stderr: r.stderr}
}

// noResult is the error of a run that delivered nothing: no request of the
// whole sweep succeeded, or a whole level delivered no token.
func (r *sweepRun) noResult() error {
	if !anySuccess(r.stats) {
		return errors.New("no request of the whole sweep succeeded; see the error columns in " + r.o.Out + "/levels.csv")
	}
	if silent := silentLevels(r.stats); silent != "" {
		return fmt.Errorf("no token at all at %s: every request of the level failed; see the error columns in %s/levels.csv", silent, r.o.Out)
	}
	return nil
}

func endReason(ctx context.Context, err error) string {
	var ab *sweep.AbortError
	switch {
	case err == nil:
		return "completed"
	case ctx.Err() != nil:
		return "canceled"
	case errors.As(err, &ab):
		return "aborted"
	default:
		return "failed"
	}
}

func anySuccess(stats []report.LevelStats) bool {
	return slices.ContainsFunc(stats, func(s report.LevelStats) bool { return s.RequestsOK > 0 })
}

// levelLine is the one status line printed on stderr as each level ends;
// an open-loop level's says its load as its plan offered it, naming the
// level once (Words.Offered, else Words.Load: "18.2 req/s offered
// (nominal 16)", a replay's "offered 2.4 req/s" after "speed=2×").
func levelLine(s report.LevelStats) string {
	var b strings.Builder
	fmt.Fprintf(&b, "level %s done (%s): ", report.LevelName(s), s.EndReason)
	if k, w := s.Key(), s.Key().Words(); w.Offered != nil {
		if load := w.Offered(k, s.OfferedRPS); load != "" {
			fmt.Fprintf(&b, "%s, ", load)
		}
	} else if w.Load != nil {
		fmt.Fprintf(&b, "%s, ", w.Load(k, s.OfferedRPS, ""))
	}
	fmt.Fprintf(&b, "%d ok, %d failed", s.RequestsOK, s.RequestsFailed)
	fmt.Fprintf(&b, ", decode p50 %s tok/s, aggregate %s tok/s", fmtRate(s.DecodeTPSP50), fmtRate(s.AggregateOutputTPS))
	if s.ClientLimited {
		fmt.Fprintf(&b, "; warning: %s client-limited: %s", s.Key().Words().Limited(1), s.ClientLimitedReason)
	}
	b.WriteString(report.ClassLines(s))
	return b.String()
}

func fmtRate(v float64) string { return report.Num(v, 1) }

// startSim starts the built-in simulator on a free loopback port and points
// the options at it.
func startSim(ctx context.Context, o *options, stderr io.Writer) (stop func(), err error) {
	cfg, err := simConfig(o, stderr)
	if err != nil {
		return nil, err
	}
	srv, err := sim.New(cfg)
	if err != nil {
		return nil, err
	}
	// The simulator outlives a Ctrl-C until the sweep has written the
	// partial level (and taken its closing metrics scrape): stop closes it.
	addr, err := srv.Start(context.WithoutCancel(ctx), "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("starting the simulator: %w", err)
	}
	o.URL = "http://" + addr.String() + "/v1"
	fmt.Fprintf(stderr, "toksweep: simulator (preset %s%s) listening on %s\n", o.SimPreset, withModel(o.Flags.SimModel), addr)
	return func() { _ = srv.Close() }, nil
}

// simConfig is the simulator --sim runs: the preset, then the --sim-*
// flags and the fitted model over it, seeded by --seed.
func simConfig(o *options, stderr io.Writer) (sim.Config, error) {
	cfg, err := sim.Preset(o.SimPreset)
	if err != nil {
		return cfg, err
	}
	cfg.NoPrefixCaching = o.SimNoPrefix
	// Its jitter follows --seed too: two runs that differ in seed are two
	// draws of the step noise, not one draw repeated.
	cfg.Seed = o.Seed
	if cfg.Adapters, err = parseAdapters("sim-adapter", o.Flags.SimAdapters); err != nil {
		return cfg, err
	}
	if c := o.Flags.SimCliff; c != "" {
		if cfg.StepCliff, err = parseCliff("sim-cliff", c); err != nil {
			return cfg, err
		}
	}
	if err := o.loadModel(&cfg, stderr); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// byConcurrency orders levels for the console tables, which read best in
// ascending load (the levels' keys' order: concurrency, or an open loop's
// rate); levels.csv keeps the run order (an adaptive search runs levels out
// of order).
func byConcurrency(stats []report.LevelStats) []report.LevelStats {
	return slices.SortedStableFunc(slices.Values(stats), func(a, b report.LevelStats) int {
		return cmp.Or(a.Key().Compare(b.Key()), cmp.Compare(a.Repeat, b.Repeat))
	})
}
