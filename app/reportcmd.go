package app

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/internal/atomicfile"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/report/htmlreport"
	"github.com/toksweep/toksweep/rundir"
)

func reportCommand(stdout, stderr io.Writer) *cli.Command {
	var out, charts string // --out, --charts
	return &cli.Command{
		Name:  "report",
		Usage: "re-render a saved run (tables, levels.csv, summary.json, charts, report.html) from its per-request records, without re-running it",
		UsageText: "toksweep report [--out DIR2] [--charts FORMATS] DIR\n\n" +
			"DIR is a run directory written by 'toksweep sweep'. Every figure is recomputed from\n" +
			"DIR/requests.jsonl; DIR/summary.json supplies what the records cannot (each level's\n" +
			"end reason and client health, the run's configuration).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Destination: &out, Usage: "write the rendered files here instead of into DIR"},
			chartsFlag(&charts),
		},
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			dir, err := oneDirArg(c, "report")
			if err != nil {
				return err
			}
			return runReport(dir, cmp.Or(out, dir), charts, stdout, stderr)
		},
	}
}

// oneDirArg is the single directory argument of a command.
func oneDirArg(c *cli.Context, cmd string) (string, error) {
	args := c.Args().Slice()
	if err := flagsFirst(args, cmd); err != nil {
		return "", err
	}
	if len(args) != 1 {
		return "", usagef("%s takes one run directory, got %d arguments (see 'toksweep %s --help')", cmd, len(args), cmd)
	}
	return args[0], nil
}

// flagsFirst rejects a flag after the arguments, which the command line
// parser would otherwise take for a directory.
func flagsFirst(args []string, cmd string) error {
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			return usagef("%s: flag %q after the directories: put flags first (see 'toksweep %s --help')", cmd, a, cmd)
		}
	}
	return nil
}

// sameDir says whether a and b are one directory.
func sameDir(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// runReport recomputes every level of the run in dir and writes levels.csv,
// summary.json, the charts (the files charts names) and report.html into
// out, and the console tables to stdout.
func runReport(dir, out, charts string, stdout, stderr io.Writer) error {
	run, err := rundir.ScanRunDir(dir) // the records stay on disk
	if err != nil {
		return err
	}
	for _, w := range run.Warnings {
		fmt.Fprintf(stderr, "toksweep: warning: %s: %s\n", dir, w)
	}
	stats := run.Stats()
	if err := run.ScanErr(); err != nil {
		return fmt.Errorf("reading run %s: %w", dir, err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("output directory %s: %w", out, err)
	}
	release, err := rundir.LockRunDir(out) // never beside a sweep writing there
	if err != nil {
		return err
	}
	defer release()
	if !sameDir(dir, out) { // another directory: never over another run's files
		if err := rundir.CheckEmpty(out); errors.Is(err, rundir.ErrRunDirNotEmpty) {
			return usagef("report --out: %s: choose an empty or new directory (or omit --out to re-render %s in place)", err, dir)
		} else if err != nil {
			return err
		}
	}
	var levels bytes.Buffer
	if err := writeLevelsCSV(&levels, stats, run.Summary.Config.Settings().Columns()); err != nil {
		return err
	}
	if err := replaceFile(filepath.Join(out, rundir.LevelsFile), levels.Bytes()); err != nil {
		return err
	}
	sum := run.Resummarized(stats)
	// The tables and report.html read the levels the run's answer read
	// (a steered run's replaced calibration runs left out); levels.csv
	// and summary.json keep every run, as the run wrote them.
	e := &runEnd{out: out, charts: charts, sum: &sum, stats: sum.Twin.Kept(stats, sum.Config), stderr: stderr,
		writeSummary: func(s report.Summary) error {
			var b bytes.Buffer
			if err := report.WriteSummaryJSON(&b, s); err != nil {
				return err
			}
			return replaceFile(filepath.Join(out, rundir.SummaryFile), b.Bytes())
		}}
	if slo, ok := sum.Config.Objective(); ok {
		e.slo = &slo
	}
	if err := e.write(context.Background(), nil, stdout); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "toksweep: re-rendered %d levels from %s into %s (%s, %s, %s, %s/)\n",
		len(stats), filepath.Join(dir, rundir.RequestsFile), out,
		rundir.LevelsFile, rundir.SummaryFile, htmlreport.File, htmlreport.ChartsDir)
	return nil
}

// writeLevelsCSV writes a whole levels.csv.
func writeLevelsCSV(w io.Writer, stats []report.LevelStats, extra []report.Column) error {
	c, err := report.NewLevelsCSV(w, extra)
	for _, s := range stats {
		if err != nil {
			break
		}
		err = c.Write(s)
	}
	return err
}

// replaceFile replaces path with b atomically, so a failed write never
// leaves a truncated file behind.
func replaceFile(path string, b []byte) error {
	return atomicfile.WriteBytes(path, b)
}
