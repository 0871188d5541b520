package app

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/mode/openloop"
	"github.com/toksweep/toksweep/mode/replay"
	"github.com/toksweep/toksweep/plan"
	"github.com/toksweep/toksweep/report/chart"
	"github.com/toksweep/toksweep/rundir"
)

// planFlagValues are the plan flags as given, bound by planCommand.
type planFlagValues struct {
	Options  plan.Options
	PeakSet  bool
	UsersSet bool
	// PeakSpeed is --peak-speed K: the peak as K times a replayed trace's
	// mean rate (the run's summary.json says it).
	PeakSpeed    float64
	PeakSpeedSet bool
	// GPUs are the --gpus-per-replica values: G for every run, or RUN=G
	// for one (gpusPerRun reads them).
	GPUs cli.StringSlice
	// Out and Charts are where a plan over several runs writes plan.json
	// and the Pareto chart, and in which formats.
	Out    string
	OutSet bool
	Charts string
}

func planCommand(stdout, stderr io.Writer) *cli.Command {
	f := &planFlagValues{}
	o := &f.Options
	return &cli.Command{
		Name:  "plan",
		Usage: "size a fleet from a finished run: replicas for a peak request rate (and N users), tokens per day, cost per million output tokens; or pick the cheapest of several runs' configurations",
		UsageText: "toksweep plan --peak-rps λ [--users N] [--headroom 0.75] [--gpus-per-replica G --gpu-hour-usd P] DIR\n" +
			"toksweep plan --peak-speed K [--users N] [--headroom 0.75] [--gpus-per-replica G --gpu-hour-usd P] DIR\n" +
			"toksweep plan --peak-rps λ --gpus-per-replica [RUN=]G ... --gpu-hour-usd P --out DIR RUN1 RUN2 ...\n\n" +
			"DIR is a finished run directory. The plan rests on the largest tested level that met the\n" +
			"run's SLO (every lower level passing too), or, for a run without an SLO, on its knee, or\n" +
			"without one on its highest level when that ran stable: then every count is a bound (\"at\n" +
			"most N replicas\"). It never extrapolates beyond a measured level. It prints every formula\n" +
			"with the run's numbers and writes DIR/" + plan.File + " (see docs/metrics.md, \"Fleet plan\").\n\n" +
			"A trace replay run (sweep --trace) takes --peak-speed K in place of --peak-rps: the peak is\n" +
			"K times the trace's mean rate (from summary.json), shown, then planned as --peak-rps.\n\n" +
			"Given several runs (each one server configuration: a tensor-parallel size, a max-num-seqs),\n" +
			"it plans each, picks the cheapest fleet (replicas × G × P) that serves the peak within the\n" +
			"SLO, says why each other loses, and writes " + plan.File + " and the Pareto chart (" + chart.ParetoName + ".svg/.png:\n" +
			"tokens/s per user against tokens/s per GPU) into --out. --gpus-per-replica G applies to every\n" +
			"run, RUN=G (RUN as given, or its base name) to one; repeat it or separate values by commas.",
		Flags: []cli.Flag{
			&cli.Float64Flag{Name: "peak-rps", Destination: &o.PeakRPS, Action: mode.Given[float64](&f.PeakSet), Usage: "peak arrival rate λ to serve, in requests per second (or --peak-speed)"},
			&cli.Float64Flag{Name: "peak-speed", Destination: &f.PeakSpeed, Action: mode.Given[float64](&f.PeakSpeedSet), Usage: "for a trace replay run (sweep --trace): the peak as K times the trace's mean rate, instead of --peak-rps"},
			&cli.IntFlag{Name: "users", Destination: &o.Users, Action: mode.Given[int](&f.UsersSet), Usage: "also size for this many concurrent users (concurrent sessions in a multi-turn run)"},
			&cli.Float64Flag{Name: "headroom", Value: plan.DefaultHeadroom, Destination: &o.Headroom, Usage: "share h of a replica's measured throughput to plan on, in (0, 1]"},
			&cli.StringSliceFlag{Name: "gpus-per-replica", Destination: &f.GPUs, Usage: "GPUs per replica G, for the cost (with --gpu-hour-usd); with several runs, G for all or RUN=G for one, repeatable"},
			&cli.Float64Flag{Name: "gpu-hour-usd", Destination: &o.GPUHourUSD, Usage: "price P of one GPU-hour in dollars (with --gpus-per-replica)"},
			&cli.StringFlag{Name: "out", Destination: &f.Out, Action: mode.Given[string](&f.OutSet), Usage: "with several runs: the directory for " + plan.File + " and the Pareto chart (created if missing; not one of the runs)"},
			chartsFlag(&f.Charts),
		},
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			dirs, err := planDirs(c)
			if err != nil {
				return err
			}
			gpus, err := gpusPerRun(f.GPUs.Value(), dirs)
			if err != nil {
				return err
			}
			if len(dirs) > 1 {
				return runChoicePlan(dirs, gpus, f, stdout)
			}
			dir := dirs[0]
			o.GPUsPerReplica = gpus[0]
			switch {
			case f.OutSet:
				return usagef("--out is for a plan over several runs; one run's %s goes beside it", plan.File)
			case f.PeakSet && f.PeakSpeedSet:
				return usagef("--peak-rps and --peak-speed are exclusive: give the peak one way")
			case f.PeakSpeedSet:
				return runSpeedPlan(dir, f.PeakSpeed, *o, stdout)
			case !f.PeakSet:
				return usagef("plan needs --peak-rps, the peak request rate to serve (see 'toksweep plan --help')")
			}
			if f.UsersSet && o.Users < 1 {
				return usagef("invalid --users %d: want a count ≥ 1", o.Users)
			}
			if err := o.Check(); err != nil {
				return usagef("%v", err)
			}
			return runFleetPlan(dir, *o, stdout)
		},
	}
}

// planDirs are plan's run directories: one or more, each once.
func planDirs(c *cli.Context) ([]string, error) {
	args := c.Args().Slice()
	if err := flagsFirst(args, "plan"); err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return nil, usagef("plan takes one run directory, or several to choose among, got none (see 'toksweep plan --help')")
	}
	for i, a := range args {
		for _, b := range args[:i] {
			if filepath.Clean(a) == filepath.Clean(b) || sameDir(a, b) {
				return nil, usagef("plan: run directory %s given twice", a)
			}
		}
	}
	return args, nil
}

// gpusPerRun reads the --gpus-per-replica values: "G" for every run of
// dirs, "RUN=G" for the run given as RUN (or whose base name is RUN). A
// run left without a value gets 0 (no price). Each G must be a finite
// count above 0.
func gpusPerRun(values, dirs []string) ([]float64, error) {
	gpus := make([]float64, len(dirs))
	var all float64
	set := make([]bool, len(dirs))
	for _, v := range values {
		run, num, one := strings.Cut(v, "=")
		if !one {
			run, num = "", v
		}
		g, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || !(g > 0) || math.IsInf(g, 0) {
			return nil, usagef("invalid --gpus-per-replica %q: want G or RUN=G, G a count > 0", v)
		}
		if !one {
			if all > 0 {
				return nil, usagef("--gpus-per-replica given for every run twice (%g and %g): give RUN=G for a run's own", all, g)
			}
			all = g
			continue
		}
		i := slices.IndexFunc(dirs, func(d string) bool {
			return run == d || filepath.Clean(run) == filepath.Clean(d) || run == filepath.Base(d)
		})
		switch {
		case i < 0:
			return nil, usagef("--gpus-per-replica %q: %s is not one of the run directories given", v, run)
		case set[i]:
			return nil, usagef("--gpus-per-replica %q: %s has a value already", v, run)
		}
		gpus[i], set[i] = g, true
	}
	for i := range gpus {
		if !set[i] {
			gpus[i] = all
		}
	}
	return gpus, nil
}

// runChoicePlan is plan over several runs: each run's plan with its own
// GPUs, the cheapest, why the others lose, and the Pareto chart; plan.json
// and the chart go into --out, and no run directory is touched.
func runChoicePlan(dirs []string, gpus []float64, f *planFlagValues, stdout io.Writer) error {
	o := f.Options
	switch {
	case f.PeakSpeedSet:
		return usagef("--peak-speed takes one trace replay run; with several runs give --peak-rps")
	case !f.PeakSet:
		return usagef("plan needs --peak-rps, the peak request rate to serve (see 'toksweep plan --help')")
	case !(o.GPUHourUSD > 0):
		return usagef("plan over several runs needs --gpu-hour-usd P: it picks the cheapest configuration")
	case f.Out == "":
		return usagef("plan over several runs needs --out DIR, the directory for %s and the Pareto chart", plan.File)
	case f.UsersSet && o.Users < 1:
		return usagef("invalid --users %d: want a count ≥ 1", o.Users)
	}
	for i, d := range dirs {
		if !(gpus[i] > 0) {
			return usagef("plan over several runs needs the GPUs per replica of %s: --gpus-per-replica G, or %s=G", d, filepath.Base(d))
		}
		if sameDir(f.Out, d) {
			return usagef("--out %s is run directory %s: give a directory of its own", f.Out, d)
		}
	}
	formats, _ := chart.ParseFormats(f.Charts) // checked by the flag
	var cs []plan.Config
	for i, d := range dirs {
		run, err := readFinishedRun(d)
		if err == nil {
			err = run.ScanErr()
		}
		if err != nil {
			return fmt.Errorf("plan %s: %w", d, err)
		}
		cs = append(cs, plan.ConfigOf(run, gpus[i]))
	}
	ch, err := plan.Choose(cs, o)
	if err != nil {
		return usagef("plan: %v", err)
	}
	return writeChoice(ch, f.Out, formats, stdout)
}

// writeChoice writes ch's plan.json and Pareto chart into out, then its
// text to stdout.
func writeChoice(ch plan.Choice, out string, formats []string, stdout io.Writer) error {
	var text, js bytes.Buffer
	if err := ch.WriteText(&text); err != nil {
		return err
	}
	if err := ch.WriteJSON(&js); err != nil {
		return err
	}
	var pts []chart.ParetoPoint
	for _, p := range ch.Points {
		pts = append(pts, chart.ParetoPoint{Label: filepath.Base(p.Run) + " " + p.Level, X: p.PerUser, Y: p.PerGPU, Front: p.Front, Chosen: p.Chosen})
	}
	c, _, err := chart.Pareto(pts)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	path := filepath.Join(out, plan.File)
	if err := replaceFile(path, js.Bytes()); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	paths, err := chart.WriteFiles(out, []chart.Chart{c}, formats)
	if err != nil {
		return err
	}
	if _, err := stdout.Write(text.Bytes()); err != nil {
		return err
	}
	for _, p := range append([]string{path}, paths...) {
		if _, err := fmt.Fprintf(stdout, "\nWrote %s", p); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintln(stdout)
	return err
}

// runFleetPlan reads the finished run in dir, prints its plan and writes
// dir/plan.json; no other file in dir is touched.
func runFleetPlan(dir string, o plan.Options, stdout io.Writer) error {
	run, err := readFinishedRun(dir)
	if err != nil {
		return err
	}
	p, err := plan.Make(run, o)
	if err == nil {
		err = run.ScanErr()
	}
	if errors.Is(err, plan.ErrCannotAnswer) {
		return usagef("plan %s: %v", dir, err)
	}
	if err != nil {
		return fmt.Errorf("plan %s: %w", dir, err)
	}
	var text, js bytes.Buffer
	if err := p.WriteText(&text); err != nil {
		return err
	}
	if err := p.WriteJSON(&js); err != nil {
		return err
	}
	if err := replaceFile(filepath.Join(dir, plan.File), js.Bytes()); err != nil {
		return fmt.Errorf("writing %s: %w", filepath.Join(dir, plan.File), err)
	}
	if _, err := stdout.Write(text.Bytes()); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "\nWrote %s\n", filepath.Join(dir, plan.File))
	return err
}

// readFinishedRun reads dir, refusing a directory that is not a whole,
// finished run: a plan must not rest on a run still writing or cut short
// before its summary caught up. It is the run as its answer read it
// (rundir.SavedRun.Kept).
func readFinishedRun(dir string) (rundir.SavedRun, error) {
	if _, err := os.Stat(filepath.Join(dir, rundir.LevelsFile)); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return rundir.SavedRun{}, fmt.Errorf("%s is not a finished run directory: no %s", dir, rundir.LevelsFile)
		}
		return rundir.SavedRun{}, err
	}
	run, err := rundir.ScanRunDir(dir) // the records stay on disk
	switch {
	case err != nil:
		return run, err
	case run.Summary.Finished.IsZero():
		return run, fmt.Errorf("run %s is not finished (%s has no finish time): plan needs a finished run", dir, rundir.SummaryFile)
	case len(run.Warnings) > 0:
		return run, fmt.Errorf("run %s is incomplete: %s", dir, run.Warnings[0])
	case len(run.Levels) == 0:
		return run, fmt.Errorf("run %s has no level to plan on", dir)
	}
	return run.Kept(), nil // a steered run's replaced calibration runs left out: the answer's levels
}

// runSpeedPlan is plan --peak-speed K: the run must be a trace replay,
// whose summary.json holds the trace's mean rate; the peak rate is K times
// it, and the plan goes on as for --peak-rps, after a line that shows the
// conversion.
func runSpeedPlan(dir string, k float64, o plan.Options, stdout io.Writer) error {
	if !(k > 0) || math.IsInf(k, 0) {
		return usagef("invalid --peak-speed %v: want a speed above 0", k)
	}
	run, err := readFinishedRun(dir)
	if err != nil {
		return err
	}
	tr := run.Summary.Trace
	if tr == nil || !tr.Timed() {
		return usagef("--peak-speed needs a trace replay run (sweep --trace); %s is not one: give --peak-rps", dir)
	}
	if most := replay.MaxSpeed(*tr); k > most {
		return usagef("invalid --peak-speed %v: over this trace's highest speed, %.6g× (it would offer more than %d req/s)", k, most, openloop.MaxRate)
	}
	o.PeakRPS = k * tr.MeanRate
	if err := o.Check(); err != nil {
		return usagef("%v", err)
	}
	if _, err := fmt.Fprintf(stdout, "peak rate λ = %g (--peak-speed) × %.6g req/s (the trace's mean rate) = %.6g req/s\n\n", k, tr.MeanRate, o.PeakRPS); err != nil {
		return err
	}
	return runFleetPlan(dir, o, stdout)
}
