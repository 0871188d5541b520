package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/mode/closed"
	"github.com/toksweep/toksweep/mode/steer"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/rundir"
	"github.com/toksweep/toksweep/sim"
	"github.com/toksweep/toksweep/sim/fit"
	"github.com/toksweep/toksweep/sweep"
)

// --twin is refused, in one line each, without a search, without an SLO,
// and with --sim-model.
func TestTwinRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--levels", "1,2", "--slo-ttft-p95", "1s"}, "--twin steers an adaptive search"},
		{[]string{"--levels", "auto"}, "--twin predicts where an SLO is met"},
		{[]string{"--levels", "auto", "--slo-ttft-p95", "1s", "--sim-model", "m.json"}, "drop --sim-model"},
	} {
		code, _, stderr := runCLI(t, context.Background(), append([]string{"sweep", "--sim", "--twin", "--out", filepath.Join(t.TempDir(), "r")}, tc.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, %q; want usage error %q", tc.args, code, stderr, tc.want)
		}
	}
}

// startHidden starts a simulator with the hidden parameters h (the
// default preset's other settings) and returns its URL.
func startHidden(t *testing.T, h hidden) string {
	t.Helper()
	cfg, err := sim.Preset("default")
	if err != nil {
		t.Fatal(err)
	}
	cfg.PrefillBase, cfg.PrefillTokensPerSec = h.prefillBase, 1e9/float64(h.perToken)
	cfg.DecodeBase, cfg.DecodePerSeq, cfg.DecodePerCtxToken, cfg.MaxNumSeqs = h.base, h.perSeq, h.perCtx, h.slots
	srv, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	addr, err := srv.Start(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return "http://" + addr.String() + "/v1"
}

// twinRun is one search's answer and cost.
type twinRun struct {
	answer      int
	loadSeconds float64
	twin        *report.TwinJSON
	starved     bool     // the machine starved during the run (runStarved)
	levels      []string // each level run, in order: "C=4/16 0.52s" (its requests, its load-seconds)
	steps       []string // the steering's lines ("twin: …")
}

// searchHidden runs --levels auto against the hidden server of seed,
// steered or not.
func searchHidden(t *testing.T, url string, steered bool) twinRun {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	args := []string{"sweep", "--url", url, "--levels", "auto", "--slo-ttft-p95", "400ms", "--input-tokens", "300:150",
		"--max-tokens", "20", "--metrics-url", "off", "--charts", "none", "--out", dir}
	if steered {
		args = append(args, "--twin")
	}
	code, _, stderr := runCLI(t, context.Background(), args...)
	if code != ExitOK {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	sum, err := readCalibSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := twinRun{twin: sum.Twin, starved: runStarved(t, dir)}
	for line := range strings.Lines(stderr) {
		if strings.HasPrefix(line, "twin: ") {
			r.steps = append(r.steps, strings.TrimSpace(line))
		}
	}
	if c := sum.Recommendation.RecommendedConcurrency; c != nil {
		r.answer = *c
	}
	run, err := rundir.ReadRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range run.Levels {
		s := report.Summarize(l, run.Summary.Config.Settings())
		r.loadSeconds += s.MeasuredSpan.Seconds()
		r.levels = append(r.levels, fmt.Sprintf("C=%d/%d %.2fs", l.Concurrency, s.RequestsOK, s.MeasuredSpan.Seconds()))
	}
	return r
}

// The steered search finds the full search's boundary (within one level,
// or 10% of it) on a simulator with hidden parameters, for at most 40% of
// its load-seconds (the target); a miss is retried (a busy machine
// moves a boundary by a level), and not judged when the machine starved
// every try. TOKSWEEP_TWIN_SEEDS=N runs N seeds once each and logs each
// one's answers and load-seconds (the target: 9 of 10 within one level,
// a mean ratio ≤ 40%), from seed TOKSWEEP_TWIN_SEED_BASE+1 (default 1).
func TestTwinFindsTheFullSearchBoundary(t *testing.T) {
	t.Parallel()
	const target = 0.40
	seeds, _ := strconv.Atoi(os.Getenv("TOKSWEEP_TWIN_SEEDS"))
	base, _ := strconv.Atoi(os.Getenv("TOKSWEEP_TWIN_SEED_BASE"))
	measure := seeds > 0
	seeds = max(seeds, 1)
	same, ratios, most := 0, 0.0, 0.0
	for i := range seeds {
		seed := base + i
		url := startHidden(t, drawHidden(uint64(seed+1)))
		var misses []string
		starved := true // every attempt ran on a starved machine
		for attempt := range timingAttempts {
			full, st := searchHidden(t, url, false), searchHidden(t, url, true)
			near := abs(full.answer-st.answer) <= max(1, full.answer/10)
			ratio := st.loadSeconds / full.loadSeconds
			line := fmt.Sprintf("seed %d: full C=%d %.2f load-s %v, steered C=%d %.2f load-s %v (%.0f%%)", seed+1, full.answer, full.loadSeconds, full.levels, st.answer, st.loadSeconds, st.levels, 100*ratio)
			if st.twin != nil {
				line += fmt.Sprintf("; calibration %v, steered %v, remeasured %v, fits %d, fallback %q; steps %q", st.twin.Calibration, st.twin.Steered, st.twin.Remeasured, st.twin.Predictions, st.twin.Fallback, st.steps)
			}
			if measure {
				t.Log(line)
				if near {
					same++
				}
				ratios, most = ratios+ratio, max(most, ratio)
				break
			}
			if near && ratio <= target {
				break
			}
			misses = append(misses, line)
			starved = starved && (full.starved || st.starved)
			switch {
			case attempt < timingAttempts-1:
			case starved:
				t.Logf("not judged: the machine starved every attempt: %q", misses)
			default:
				t.Errorf("every attempt missed (within one level, at most %.0f%% of the load-seconds): %q", 100*target, misses)
			}
		}
	}
	if measure {
		t.Logf("%d of %d seeds within one level; load-seconds ratio mean %.0f%%, max %.0f%%", same, seeds, 100*ratios/float64(seeds), 100*most)
	}
}

func abs(v int) int { return max(v, -v) }

// A model steers only when it fits: a poor fit is refused naming its
// level, as is an interval that moves its steps too far or an unknown
// per-sequence cost; a cost folded into another is no reason.
func TestTwinRefusesWhatDoesNotFit(t *testing.T) {
	t.Parallel()
	poor := "C=16: measured steps average 3.0× the fitted ones as the other levels' fit gives them (bias -66%)"
	for _, tc := range []struct {
		m    fit.Model
		want string
	}{
		{fit.Model{}, ""},
		{fit.Model{Calibration: &fit.Calibration{IllConditioned: []string{"prefill_base is not identified"}}}, ""},
		{fit.Model{Poor: []string{poor}}, "the fit is poor (the step model cannot represent the server there): " + poor},
		{fit.Model{Calibration: &fit.Calibration{IllConditioned: []string{"decode_per_seq is not identified"}}}, "ill-conditioned fit (decode_per_seq is not identified)"},
		{fit.Model{Calibration: &fit.Calibration{IllConditioned: []string{"prefill_base's 80% interval (19.0ms/step – 89.2ms/step) moves the steps it is part of by 71%"}}},
			"ill-conditioned fit (prefill_base's 80% interval (19.0ms/step – 89.2ms/step) moves the steps it is part of by 71%)"},
	} {
		if got, poor := twinRefuses(tc.m); got != tc.want || poor != (len(tc.m.Poor) > 0) {
			t.Errorf("%+v: %q (poor %v), want %q", tc.m, got, poor, tc.want)
		}
	}
}

// A level measured again at full length replaces its calibration run in
// the run's levels and the fit's, once (a later repeat joins it); the
// load-seconds count every run. Here C=4 and C=8 run as calibration
// levels (the mode's first two), the model is refused, and C=8, the
// answer, runs again in full, twice (--repeat 2).
func TestTwinRemeasureReplacesTheCalibrationRun(t *testing.T) {
	t.Parallel()
	var real []report.LevelStats
	tw := &twin{o: &options{}, real: &real, replaced: map[sweep.LevelKey]bool{}}
	tw.ld = steer.New(context.Background(), closed.Load{Levels: []int{4, 8}}, refusing{}, tw.verdict, func(string) {})
	var sum report.Summary
	add := func(c, ok int, span time.Duration) {
		s := report.LevelStats{Mode: sweep.ClosedMode, Concurrency: c, MeasuredSpan: span, RequestsOK: ok}
		real = append(real, s)
		tw.add(&sweep.Level{Mode: s.Mode, Concurrency: c}, s, &sum)
	}
	next := tw.ld.Keys()
	for _, c := range []int{4, 8} {
		if k, ok := next(); !ok || k.Concurrency != c || !tw.ld.Short(k) {
			t.Fatalf("key %v (%v), short %v; want C=%d, short", k, ok, tw.ld.Short(k), c)
		}
		add(c, c, time.Second)
	}
	if k, ok := next(); !ok || k.Concurrency != 8 || tw.ld.Short(k) {
		t.Fatalf("key %v (%v), short %v; want C=8 in full", k, ok, tw.ld.Short(k))
	}
	add(8, 32, 3*time.Second)
	add(8, 32, 3*time.Second)
	var got []int
	for _, s := range real {
		got = append(got, s.RequestsOK)
	}
	if !slices.Equal(got, []int{4, 32, 32}) || len(tw.levels) != 3 || tw.spent != 8 {
		t.Errorf("levels' requests %v, %d fit levels, %v load-s; want [4 32 32], 3, 8", got, len(tw.levels), tw.spent)
	}
}

// refusing is a steer.Predictor that refuses every model.
type refusing struct{}

func (refusing) Predict(context.Context) (steer.Prediction, error) {
	return steer.Prediction{Refused: "a test"}, nil
}

// Without --repeat, the answer that ran as a calibration level runs the
// rest of its requests (steer.Load.Pool): a second run of the level,
// kept beside the first in the run's levels and the fit's, both judged.
// Here C=4 and C=8 run as calibration levels (4 and 8 of their 16 and 32
// requests), the model is refused, and C=8 runs its other 24.
func TestTwinContinuesTheAnswersCalibrationRun(t *testing.T) {
	t.Parallel()
	var real []report.LevelStats
	o := &options{}
	tw := &twin{o: o, real: &real, replaced: map[sweep.LevelKey]bool{}}
	tw.ld = steer.New(context.Background(), closed.Load{Levels: []int{4, 8}}, refusing{}, tw.verdict, func(string) {})
	tw.ld.Pool = true
	var sum report.Summary
	var cfg sweep.Config
	var counts []int
	next := tw.ld.Keys()
	for k, ok := next(); ok; k, ok = next() {
		n := tw.ld.Measured(&cfg, k)
		counts = append(counts, n)
		s := report.LevelStats{Mode: sweep.ClosedMode, Concurrency: k.Concurrency, MeasuredSpan: time.Second, RequestsOK: n}
		real = append(real, s)
		tw.add(&sweep.Level{Mode: s.Mode, Concurrency: k.Concurrency}, s, &sum)
	}
	if !slices.Equal(counts, []int{4, 8, 24}) || len(real) != 3 || len(tw.levels) != 3 || tw.spent != 3 {
		t.Errorf("requests %v, %d levels, %d fit levels, %v load-s; want [4 8 24], 3, 3, 3", counts, len(real), len(tw.levels), tw.spent)
	}
	if c := tw.ld.Continued; len(c) != 1 || c[0].Concurrency != 8 || len(tw.ld.Remeasured) != 0 {
		t.Errorf("continued %v, remeasured %v; want C=8, none", c, tw.ld.Remeasured)
	}
}
