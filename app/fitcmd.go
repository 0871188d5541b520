package app

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/internal/atomicfile"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/rundir"
	"github.com/toksweep/toksweep/sim/fit"
)

// fitOptions are the fit command's flags.
type fitOptions struct {
	Out       string
	Resamples int
	Calib     calibOptions // --url: calibrate first (fitcalib.go)
}

// The bounds of --resamples: fewer than minResamples leave the 10th and
// 90th percentiles resting on one or two estimates.
const (
	minResamples = 20
	maxResamples = 10000
)

func fitCommand(stdout, stderr io.Writer) *cli.Command {
	o := &fitOptions{}
	return &cli.Command{
		Name:  "fit",
		Usage: "fit the simulator's parameters to saved runs, for serve-sim --sim-model and sweep --sim --sim-model",
		UsageText: "toksweep fit --out model.json RUN [RUN...]\ntoksweep fit --url http://HOST:PORT/v1 --out model.json [--calibrate-for 2m]\n\n" +
			"The decode steps of the runs' successful requests, and the first tokens of requests sent to an\n" +
			"idle server, are fitted to the simulator's step model (docs/metrics.md, \"The fitted model\").\n" +
			"It prints each parameter with an 80% bootstrap interval, the residual of each level and a\n" +
			"sentence for each parameter the runs cannot identify, then writes the model to --out, a new file.\n" +
			"With --url it first calibrates the server (it says what it sends, and for how long), keeping the runs.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "out", Destination: &o.Out, Usage: "the model file to write (a new file: an existing one is never replaced)"},
			&cli.IntFlag{Name: "resamples", Value: 200, Destination: &o.Resamples, Usage: fmt.Sprintf("bootstrap resamples for the intervals (%d to %d)", minResamples, maxResamples)},
		}, calibFlags(&o.Calib)...),
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			dirs := c.Args().Slice()
			var calibOnly []string
			for _, f := range calibFlags(&calibOptions{}) {
				if n := f.Names()[0]; n != "url" {
					calibOnly = append(calibOnly, n)
				}
			}
			for _, n := range c.FlagNames() { // the flags given
				if slices.Contains(calibOnly, n) && o.Calib.URL == "" {
					return usagef("--%s applies only to fit --url (a calibration); fitting saved runs it would be ignored", n)
				}
			}
			if err := o.check(dirs); err != nil {
				return err
			}
			if o.Calib.URL != "" {
				var err error
				if dirs, err = calibrate(c.Context, &o.Calib, stderr); err != nil {
					return err
				}
			}
			return runFit(dirs, o, stdout, stderr)
		},
	}
}

// check refuses a command line fit cannot run, each in one line.
func (o *fitOptions) check(dirs []string) error {
	if err := flagsFirst(dirs, "fit"); err != nil {
		return err
	}
	switch {
	case o.Calib.URL != "" && len(dirs) > 0:
		return usagef("fit --url calibrates the server and fits its own runs: drop the run directories, or --url")
	case o.Calib.URL == "" && len(dirs) == 0:
		return usagef("fit takes one or more run directories, or --url URL to calibrate a server (see 'toksweep fit --help')")
	}
	if o.Out == "" {
		return usagef("fit needs --out FILE, the model file to write (e.g. --out model.json)")
	}
	if o.Resamples < minResamples || o.Resamples > maxResamples {
		return usagef("invalid --resamples %d: want %d to %d", o.Resamples, minResamples, maxResamples)
	}
	if fi, err := os.Stat(o.Out); err == nil {
		what := "a file"
		if fi.IsDir() {
			what = "a directory"
		}
		return usagef("fit --out %s: it is %s already: name a new file (fit never replaces one)", o.Out, what)
	}
	if o.Calib.URL != "" {
		return o.Calib.check(o.Out)
	}
	return nil
}

// runFit reads the runs, fits them, prints the fit and writes the model.
func runFit(dirs []string, o *fitOptions, stdout, stderr io.Writer) error {
	var levels []fit.Level
	for _, d := range dirs {
		run, err := rundir.ReadRunDir(d)
		if err != nil {
			return err
		}
		for _, w := range run.Warnings {
			fmt.Fprintf(stderr, "toksweep: warning: %s: %s\n", d, w)
		}
		for _, l := range run.Levels {
			s := report.Summarize(l, run.Summary.Config.Settings())
			ms := measuredOf(&l, s)
			name := ms.Level
			if len(dirs) > 1 {
				name = filepath.Base(filepath.Clean(d)) + " " + name
			}
			levels = append(levels, fit.Level{Name: name, Records: l.Records, Server: l.Server, Measured: &ms})
		}
	}
	m, err := fit.FromLevels(levels, fit.Options{Resamples: o.Resamples})
	if errors.Is(err, fit.ErrNoSteps) {
		return fmt.Errorf("fit: %w (the runs hold %d levels)", err, len(levels))
	} else if err != nil {
		return fmt.Errorf("fit: %w", err)
	}
	m.Runs = dirs
	if err := m.WriteText(stdout); err != nil {
		return err
	}
	err = atomicfile.WriteNew(o.Out, m.WriteJSON)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("fit --out %s: the file appeared while fitting: it is left as it was, and the model is not written", o.Out)
	} else if err != nil {
		return fmt.Errorf("fit --out %s: %w", o.Out, err)
	}
	_, err = fmt.Fprintf(stdout, "\nWrote %s\n", o.Out)
	return err
}

// withModel is ", model PATH" for the simulator's opening line, "" without
// a model.
func withModel(path string) string {
	if path == "" {
		return ""
	}
	return ", model " + path
}
