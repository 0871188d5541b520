package app

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/compare"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/report/chart"
	"github.com/toksweep/toksweep/rundir"
)

// CompareFile is the CSV that compare writes in its output directory.
const CompareFile = "compare.csv"

// compareOptions are the compare command's flags, named after them.
type compareOptions struct {
	Out        string
	Resamples  int
	Confidence float64
	Seed       uint64
	MinEffect  string
	Charts     string
}

func compareCommand(stdout, stderr io.Writer) *cli.Command {
	var o compareOptions
	return &cli.Command{
		Name:  "compare",
		Usage: "compare saved runs level by level: per-stream decode tok/s, TTFT, aggregate tok/s, with confidence intervals and a verdict",
		UsageText: "toksweep compare [--out DIR] [--charts FORMATS] DIR_A DIR_B [DIR_C ...]\n\n" +
			"DIR_A is the baseline; every other run is compared with it on the levels the two share.\n" +
			"Figures are recomputed from each run's requests.jsonl. Sweep both runs with --repeat 2 or more\n" +
			"for intervals that include run-to-run noise; with one run a side it is not measured.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Destination: &o.Out, Usage: "write " + CompareFile + " and the overlay charts here (default: results/compare-YYYYMMDD-HHMMSS)"},
			&cli.IntFlag{Name: "resamples", Value: compare.DefaultResamples, Destination: &o.Resamples, Usage: "bootstrap resamples per interval (100 to 100000)"},
			&cli.Float64Flag{Name: "confidence", Value: compare.DefaultConfidence, Destination: &o.Confidence, Usage: "confidence level of the intervals, in (0, 1)"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Destination: &o.Seed, Usage: "seed of the bootstrap: the same runs and seed give the same intervals"},
			&cli.StringFlag{Name: "min-effect", Value: minEffectText(compare.DefaultMinEffect), Destination: &o.MinEffect,
				Usage: "practical-significance floor in percent: a significant difference smaller than this is \"no meaningful difference\" (0: none)"},
			chartsFlag(&o.Charts),
		},
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) (err error) {
			dirs := c.Args().Slice()
			if err := flagsFirst(dirs, "compare"); err != nil {
				return err
			}
			if len(dirs) < 2 {
				return usagef("compare needs at least two run directories, got %d (see 'toksweep compare --help')", len(dirs))
			}
			opts := compare.Options{Resamples: o.Resamples, Confidence: o.Confidence, Seed: o.Seed}
			if opts.Resamples < 100 || opts.Resamples > compare.MaxResamples {
				return usagef("invalid --resamples %d: want an integer from 100 to %d", opts.Resamples, compare.MaxResamples)
			}
			if !(opts.Confidence > 0 && opts.Confidence < 1) {
				return usagef("invalid --confidence %v: want a fraction in (0, 1), e.g. 0.95", opts.Confidence)
			}
			if opts.MinEffect, err = parseMinEffect(o.MinEffect); err != nil {
				return err
			}
			out := o.Out
			if out == "" {
				out = "results/compare-" + time.Now().Format("20060102-150405")
			}
			formats, _ := chart.ParseFormats(o.Charts) // checked by the flag
			return runCompare(dirs, out, opts, formats, stdout, stderr)
		},
	}
}

// minEffectText formats a floor for --min-effect, e.g. "2%".
func minEffectText(f float64) string {
	return strconv.FormatFloat(100*f, 'f', -1, 64) + "%"
}

// parseMinEffect reads --min-effect, a percentage with or without "%", as
// a fraction.
func parseMinEffect(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || !(v >= 0 && v < 100) {
		return 0, usagef("invalid --min-effect %q: want a percentage in [0, 100), e.g. 2%%", s)
	}
	return v / 100, nil
}

// runCompare reads the runs, prints the comparison, and writes compare.csv
// and the overlay charts, in formats, into out.
func runCompare(dirs []string, out string, opts compare.Options, formats []string, stdout, stderr io.Writer) error {
	runs := make([]compare.Run, len(dirs))
	series := make([]chart.Series, len(dirs))
	var base *report.RunConfig
	var scanned []rundir.SavedRun
	for i, dir := range dirs {
		saved, err := rundir.ScanRunDir(dir) // the records stay on disk
		if err != nil {
			return err
		}
		for _, w := range saved.Warnings {
			fmt.Fprintf(stderr, "toksweep: warning: %s: %s\n", dir, w)
		}
		saved = saved.Kept() // a steered run's replaced calibration runs left out, as report RUN does
		if i == 0 {
			base = saved.Summary.Config
		} else if diff := workloadDiff(base, saved.Summary.Config); diff != "" {
			fmt.Fprintf(stderr, "toksweep: warning: %s and %s ran different workloads (%s): a difference may be the workload's, not the server's\n", dirs[0], dir, diff)
		}
		runs[i] = compare.Run{Name: dir, Levels: saved.Levels}
		series[i] = chart.Series{Name: dir, Stats: saved.Stats()}
		scanned = append(scanned, saved)
	}
	tab, err := compare.Compare(runs, opts)
	if err != nil {
		return err
	}
	for i, saved := range scanned {
		if err := saved.ScanErr(); err != nil {
			return fmt.Errorf("reading run %s: %w", dirs[i], err)
		}
	}
	if err := tab.SharedErr(); err != nil {
		return err // before any output: no partial files
	}
	if err := tab.WriteText(stdout); err != nil {
		return err
	}
	if err := writeCompareFiles(out, tab, series, formats); err != nil {
		return err
	}
	if len(formats) == 0 {
		fmt.Fprintf(stderr, "toksweep: wrote %s in %s\n", CompareFile, out)
	} else {
		exts := formats[0]
		if len(formats) > 1 {
			exts = "{" + strings.Join(formats, ",") + "}"
		}
		fmt.Fprintf(stderr, "toksweep: wrote %s and the overlay charts %s.%s, %s.%s in %s\n",
			CompareFile, chart.CompareDecodeName, exts, chart.CompareTradeoffName, exts, out)
	}
	return nil
}

func writeCompareFiles(out string, tab compare.Table, series []chart.Series, formats []string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("output directory %s: %w", out, err)
	}
	var b bytes.Buffer
	if err := tab.WriteCSV(&b); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, CompareFile), b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("output directory %s: %w", out, err)
	}
	charts, err := chart.CompareCharts(series)
	if err != nil {
		return err
	}
	_, err = chart.WriteFiles(out, charts, formats)
	return err
}

// workloadFields are the configuration fields that change what is
// measured: runs that differ in them are not an A/B test of the server.
// Each is shown as summary.json writes it.
var workloadFields = []struct {
	name string
	text func(*report.RunConfig) string
}{
	{"api", func(c *report.RunConfig) string { return jsonText(c.API) }},
	{"model", func(c *report.RunConfig) string { return jsonText(c.Model) }},
	{"max_tokens", func(c *report.RunConfig) string { return jsonText(c.MaxTokens) }},
	{"temperature", func(c *report.RunConfig) string { return jsonText(c.Temperature) }}, // null: not sent
	{"prompt_source", func(c *report.RunConfig) string { return jsonText(c.PromptSource) }},
	{"extra_body", func(c *report.RunConfig) string {
		if c.ExtraBody == nil {
			return ""
		}
		return jsonText(c.ExtraBody)
	}},
	{"warmup", func(c *report.RunConfig) string { return jsonText(c.Warmup) }},
}

// workloadDiff names the workload fields in which two saved configurations
// differ, "" when none does or a run recorded no configuration.
func workloadDiff(a, b *report.RunConfig) string {
	if a == nil || b == nil {
		return ""
	}
	var diffs []string
	for _, f := range workloadFields {
		if va, vb := f.text(a), f.text(b); va != vb {
			diffs = append(diffs, fmt.Sprintf("%s %s vs %s", f.name, cmp.Or(va, "none"), cmp.Or(vb, "none")))
		}
	}
	return strings.Join(diffs, "; ")
}
