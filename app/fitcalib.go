package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/report/chart"
	"github.com/toksweep/toksweep/rundir"
)

// calibOptions are fit --url's flags: the server, how long the calibration
// may take, the highest concurrency it tries, and where its runs go.
type calibOptions struct {
	URL            string
	For            time.Duration // --calibrate-for
	MaxConcurrency int           // --calibrate-max-concurrency
	Dir            string        // --calibrate-out; "" means OUT's name with ".calibration"
	Model          string        // --model
	ExtraBody      string        // --extra-body, as sweep takes it
}

// calibShape is one workload of the calibration: prompts of about Prompt
// tokens (standard deviation Stddev) and Output tokens out.
type calibShape struct{ Prompt, Stddev, Output int }

// The calibration's design: a ladder of concurrencies at the base shape,
// doubling until the aggregate output rate grows by less than
// saturatedGrowth (the batch is full: later requests wait for a slot,
// which the slot limit is counted from), then each other shape at half
// the ladder's last concurrency (a batch that prefills beside decoding),
// so that the prompt lengths and the outputs vary apart from the batch.
var (
	calibBase   = calibShape{Prompt: 256, Stddev: 128, Output: 64}
	calibOthers = []calibShape{{Prompt: 768, Stddev: 192, Output: 64}, {Prompt: 64, Stddev: 16, Output: 16}}
)

const (
	saturatedGrowth = 0.15
	// levelShare is the part of the calibration's time given to the
	// levels' measured phases; the rest is their drains (half a level at
	// most) and each run's checks before its load.
	levelShare = 0.6
	// minCalibLevel is the shortest measured phase a level gets.
	minCalibLevel = 500 * time.Millisecond
)

func calibFlags(o *calibOptions) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "url", Destination: &o.URL, Usage: "calibrate this server first (OpenAI-compatible base URL, …/v1), then fit its runs (no RUN arguments)"},
		&cli.DurationFlag{Name: "calibrate-for", Value: 2 * time.Minute, Destination: &o.For, Usage: "--url: the calibration's time bound"},
		&cli.IntFlag{Name: "calibrate-max-concurrency", Value: 64, Destination: &o.MaxConcurrency, Usage: "--url: the highest concurrency the calibration's ladder tries"},
		&cli.StringFlag{Name: "calibrate-out", Destination: &o.Dir, DefaultText: "OUT.calibration", Usage: "--url: the new directory the calibration's runs are kept in"},
		&cli.StringFlag{Name: "model", Destination: &o.Model, Usage: "--url: the model to calibrate; when omitted, the one /v1/models lists"},
		&cli.StringFlag{Name: "extra-body", Destination: &o.ExtraBody, Usage: `--url: JSON merged into each request, as sweep's (e.g. '{"ignore_eos": true}')`},
	}
}

// check refuses a calibration that cannot run.
func (c *calibOptions) check(out string) error {
	if c.For < 5*time.Second {
		return usagef("invalid --calibrate-for %v: want at least 5s", c.For)
	}
	if c.MaxConcurrency < 2 || c.MaxConcurrency > 4096 {
		return usagef("invalid --calibrate-max-concurrency %d: want 2 to 4096", c.MaxConcurrency)
	}
	if c.Dir == "" {
		c.Dir = strings.TrimSuffix(out, filepath.Ext(out)) + ".calibration"
	}
	if _, err := os.Stat(c.Dir); err == nil {
		return usagef("fit --calibrate-out %s: it exists already: name a new directory (or remove it)", c.Dir)
	}
	return nil
}

// ladder is the concurrencies the calibration may try: 1, 2, 4, … up to
// the largest power of two at most max, then max.
func (c *calibOptions) ladder() []int {
	var out []int
	for n := 1; n <= c.MaxConcurrency; n *= 2 {
		out = append(out, n)
	}
	if out[len(out)-1] != c.MaxConcurrency {
		out = append(out, c.MaxConcurrency)
	}
	return out
}

// levelTime is each level's measured phase: levelShare of the bound,
// shared by every level that may run.
func (c *calibOptions) levelTime() time.Duration {
	n := len(c.ladder()) + len(calibOthers)
	return max((time.Duration(float64(c.For)*levelShare) / time.Duration(n)).Round(100*time.Millisecond), minCalibLevel)
}

// plan is the sentence said before the calibration: what it sends, how
// long it takes at most, and where its runs go.
func (c *calibOptions) plan() string {
	var others []string
	for _, s := range calibOthers {
		others = append(others, fmt.Sprintf("prompts of ~%d tokens with %d out", s.Prompt, s.Output))
	}
	return fmt.Sprintf("fit: calibrating %s for at most %v, %v a level, runs in %s: concurrency 1, 2, 4, … up to %d, doubling until the aggregate output rate grows by under %.0f%%, at prompts of ~%d tokens (sd %d) with %d output tokens; then at half the last concurrency, %s",
		redactURL(c.URL), c.For, c.levelTime(), c.Dir, c.MaxConcurrency, 100*saturatedGrowth, calibBase.Prompt, calibBase.Stddev, calibBase.Output, strings.Join(others, ", and "))
}

// calibrate runs the calibration's levels, each a sweep of one level in
// its own run directory under c.Dir, and returns those directories. A
// level that fails stops it with the sweep's error.
func calibrate(ctx context.Context, c *calibOptions, stderr io.Writer) ([]string, error) {
	fmt.Fprintln(stderr, "toksweep: "+c.plan())
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("fit --calibrate-out %s: %w", c.Dir, err)
	}
	start := time.Now()
	d := c.levelTime()
	worst := d + d/2 // a level's phase and its drain
	var dirs []string
	last, prev := 0, 0.0
	for i, n := range c.ladder() {
		if i > 0 && time.Since(start)+worst > c.For-time.Duration(len(calibOthers))*worst {
			break // the other shapes' levels need the rest
		}
		dir, tps, err := calibLevel(ctx, c, n, calibBase, d, stderr)
		if err != nil {
			return dirs, err
		}
		dirs, last = append(dirs, dir), n
		if prev > 0 && tps < prev*(1+saturatedGrowth) {
			break
		}
		prev = tps
	}
	n := max(last/2, 1)
	for _, s := range calibOthers {
		if time.Since(start)+worst > c.For {
			fmt.Fprintf(stderr, "toksweep: fit: the calibration's time is spent: prompts of ~%d tokens are not run\n", s.Prompt)
			break
		}
		dir, _, err := calibLevel(ctx, c, n, s, d, stderr)
		if err != nil {
			return dirs, err
		}
		dirs = append(dirs, dir)
	}
	fmt.Fprintf(stderr, "toksweep: fit: calibrated in %v (%d levels)\n", time.Since(start).Round(100*time.Millisecond), len(dirs))
	return dirs, nil
}

// calibLevel runs one level (concurrency n, shape s, measured for d) as a
// sweep of its own, quietly, and says its figures in one line: it returns
// the run directory and the level's aggregate output tok/s.
func calibLevel(ctx context.Context, c *calibOptions, n int, s calibShape, d time.Duration, stderr io.Writer) (string, float64, error) {
	dir := filepath.Join(c.Dir, fmt.Sprintf("c%d-p%d-o%d", n, s.Prompt, s.Output))
	args := []string{"toksweep", "sweep", "--url", c.URL, "--levels", strconv.Itoa(n), "--duration", d.String(), "--drain-timeout", (d / 2).String(),
		"--input-tokens", fmt.Sprintf("%d:%d", s.Prompt, s.Stddev), "--max-tokens", strconv.Itoa(s.Output), "--charts", chart.NoFiles, "--out", dir}
	if c.Model != "" {
		args = append(args, "--model", c.Model)
	}
	if c.ExtraBody != "" {
		args = append(args, "--extra-body", c.ExtraBody)
	}
	var errb strings.Builder
	if err := New(io.Discard, &errb).RunContext(ctx, args); err != nil {
		return dir, 0, fmt.Errorf("fit: calibration level C=%d at prompts of ~%d tokens: %w (%s)", n, s.Prompt, err, finalLine(errb.String()))
	}
	sum, err := readCalibSummary(dir)
	if err != nil || len(sum.Levels) == 0 {
		return dir, 0, fmt.Errorf("fit: calibration level C=%d: its summary: %v", n, err)
	}
	l := sum.Levels[0]
	tps := derefOr(l.AggregateOutputTPS)
	fmt.Fprintf(stderr, "toksweep: fit: C=%d, prompts ~%d, %d out: %d ok, %s output tok/s, TTFT p50 %sms\n",
		n, s.Prompt, s.Output, l.RequestsOK, fmtRate(tps), report.Num(derefOr(l.TTFTP50Ms), 1))
	return dir, tps, nil
}

func derefOr(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}

func finalLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func readCalibSummary(dir string) (report.Summary, error) {
	var sum report.Summary
	b, err := os.ReadFile(filepath.Join(dir, rundir.SummaryFile))
	if err != nil {
		return sum, err
	}
	return sum, json.Unmarshal(b, &sum)
}
