package app

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/plan"
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
}

func planCommand(stdout, stderr io.Writer) *cli.Command {
	f := &planFlagValues{}
	o := &f.Options
	return &cli.Command{
		Name:  "plan",
		Usage: "size a fleet from a finished run: replicas for a peak request rate (and N users), tokens per day, cost per million output tokens",
		UsageText: "toksweep plan --peak-rps λ [--users N] [--headroom 0.75] [--gpus-per-replica G --gpu-hour-usd P] DIR\n\n" +
			"DIR is a finished run directory. The plan rests on the largest tested level that met the\n" +
			"run's SLO (every lower level passing too), or, for a run without an SLO, on its knee; it\n" +
			"never extrapolates beyond a measured level. It prints every formula with the run's numbers\n" +
			"and writes DIR/" + plan.File + " (see docs/metrics.md, \"Fleet plan\").",
		Flags: []cli.Flag{
			&cli.Float64Flag{Name: "peak-rps", Destination: &o.PeakRPS, Action: given[float64](&f.PeakSet), Usage: "peak arrival rate λ to serve, in requests per second (required)"},
			&cli.Float64Flag{Name: "peak-speed", Destination: &f.PeakSpeed, Action: given[float64](&f.PeakSpeedSet), Usage: "for a trace replay run (sweep --trace): the peak as K times the trace's mean rate, instead of --peak-rps"},
			&cli.IntFlag{Name: "users", Destination: &o.Users, Action: given[int](&f.UsersSet), Usage: "also size for this many concurrent users"},
			&cli.Float64Flag{Name: "headroom", Value: plan.DefaultHeadroom, Destination: &o.Headroom, Usage: "share h of a replica's measured throughput to plan on, in (0, 1]"},
			&cli.Float64Flag{Name: "gpus-per-replica", Destination: &o.GPUsPerReplica, Usage: "GPUs per replica G, for the cost per million output tokens (with --gpu-hour-usd)"},
			&cli.Float64Flag{Name: "gpu-hour-usd", Destination: &o.GPUHourUSD, Usage: "price P of one GPU-hour in dollars (with --gpus-per-replica)"},
		},
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			dir, err := oneDirArg(c, "plan")
			if err != nil {
				return err
			}
			switch {
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
// before its summary caught up.
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
	return run, nil
}

// runSpeedPlan is plan --peak-speed K: the run must be a trace replay,
// whose summary.json holds the trace's mean rate; the peak rate is K times
// it, and the plan goes on as for --peak-rps, after a line that shows the
// conversion.
func runSpeedPlan(dir string, k float64, o plan.Options, stdout io.Writer) error {
	if !(k > 0) || k > maxSpeed {
		return usagef("invalid --peak-speed %v: want a speed above 0 and up to %d", k, maxSpeed)
	}
	run, err := readFinishedRun(dir)
	if err != nil {
		return err
	}
	tr := run.Summary.Trace
	if tr == nil || !(tr.MeanRate > 0) {
		return usagef("--peak-speed needs a trace replay run (sweep --trace); %s is not one: give --peak-rps", dir)
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
