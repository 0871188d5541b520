package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/internal/atomicfile"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sim"
	"github.com/toksweep/toksweep/sim/fit"
	"github.com/toksweep/toksweep/sweep"
)

// measuredOf keeps a level's key, the mean prompt and output lengths of its
// measured successful requests (warm-up and failures left out) and the
// graded figures that have a value, in milliseconds and tok/s.
func TestMeasuredOf(t *testing.T) {
	ok := func(prompt, out int) client.Record {
		return client.Record{PromptTokens: prompt, CompletionTokens: out, HasUsage: true}
	}
	l := sweep.Level{Mode: sweep.ClosedMode, Concurrency: 4, Records: []client.Record{
		ok(100, 10), ok(300, 30), {PromptTokens: 5000, ErrorClass: client.ErrorClasses[1]}, func() client.Record { r := ok(7000, 70); r.Warmup = true; return r }(),
	}}
	s := report.LevelStats{Mode: sweep.ClosedMode, Concurrency: 4, TTFTP50: 120 * time.Millisecond, TTFTP95: 250 * time.Millisecond,
		TPOTP50: report.NoSample, DecodeTPSP50: 48, AggregateOutputTPS: math.NaN(), InflightMean: 3.5, RequestsPerS: 2}
	m := measuredOf(&l, s)
	want := fit.Measured{Level: "C=4", Mode: sweep.ClosedMode, Concurrency: 4, PromptMean: 200, OutputMean: 20, InflightMean: 3.5, RequestsPerS: 2,
		Figures: map[string]float64{"ttft_p50_ms": 120, "ttft_p95_ms": 250, "decode_tps_p50": 48}}
	got, _ := json.Marshal(m)
	wantJSON, _ := json.Marshal(want)
	if string(got) != string(wantJSON) {
		t.Errorf("measured %s, want %s", got, wantJSON)
	}
}

// A level is graded against the measurement of the same mode, load and
// mean lengths (within 25%), figure by figure, each error (p − m)/m, null
// where m is 0 and absent where either side has no value; a level measured
// only with other lengths is named, not graded.
func TestGrading(t *testing.T) {
	meas := func(c int, prompt float64, figs map[string]float64) fit.Measured {
		return fit.Measured{Level: "C=?", Mode: sweep.ClosedMode, Concurrency: c, PromptMean: prompt, OutputMean: 40, Figures: figs}
	}
	g := &grader{measured: []fit.Measured{
		meas(2, 1000, map[string]float64{"ttft_p50_ms": 80}),
		meas(4, 500, map[string]float64{"ttft_p50_ms": 1}), // the same load, other prompts
		meas(4, 1000, map[string]float64{"ttft_p50_ms": 100, "ttft_p95_ms": 200, "tpot_p50_ms": 0, "aggregate_output_tps": 500}),
	}}
	level := func(c, prompt int) *sweep.Level {
		return &sweep.Level{Mode: sweep.ClosedMode, Concurrency: c, Records: []client.Record{{PromptTokens: prompt, CompletionTokens: 40, HasUsage: true}}}
	}
	stats := func(c int) report.LevelStats {
		return report.LevelStats{Mode: sweep.ClosedMode, Concurrency: c, TTFTP50: 110 * time.Millisecond, TTFTP95: 150 * time.Millisecond,
			TPOTP50: 5 * time.Millisecond, DecodeTPSP50: 50, AggregateOutputTPS: math.NaN()}
	}
	sum := &report.Summary{SimModel: &report.SimModelJSON{File: "m.json"}}
	g.add(level(4, 1240), stats(4), sum) // within 25% of 1000
	g.add(level(2, 1300), stats(2), sum) // 30% longer prompts: not graded
	g.add(level(8, 1000), stats(8), sum) // not measured
	var nilGrader *grader                // no --sim-model
	nilGrader.add(level(4, 1000), stats(4), sum)
	rel := func(v float64) *float64 { return &v }
	want := []report.GradeJSON{{Level: "C=4", Figures: []report.GradeFigure{
		{Name: "ttft_p50_ms", Predicted: 110, Measured: 100, RelError: rel(0.1)},
		{Name: "ttft_p95_ms", Predicted: 150, Measured: 200, RelError: rel(-0.25)},
		{Name: "tpot_p50_ms", Predicted: 5, Measured: 0},
	}}}
	got, _ := json.Marshal(sum.Grading)
	wantJSON, _ := json.Marshal(want)
	if string(got) != string(wantJSON) {
		t.Errorf("grading %s\nwant    %s", got, wantJSON)
	}
	if len(sum.Predictions) != 3 { // every level is predicted (fitinterval.go), graded or not
		t.Errorf("%d predictions, want 3", len(sum.Predictions))
	}
	sum.Predictions = nil // the grading's own lines
	lines := strings.Join(g.lines(sum), "\n")
	wantLines := "Model vs measured at C=4: ttft_p50_ms +10.0%, ttft_p95_ms -25.0%, tpot_p50_ms -.\n" +
		"Not graded: C=2 measured only with prompts or outputs over 25% longer or shorter."
	if lines != wantLines {
		t.Errorf("lines\n%s\nwant\n%s", lines, wantLines)
	}
	sum.Grading, sum.SimModel.Caution = nil, "an extrapolation (--allow-extrapolation): x"
	if l := (&grader{measured: g.measured[:1]}).lines(sum); len(l) != 2 || !strings.Contains(l[0], "nothing graded") || l[1] != "Caution: the predictions are an extrapolation (--allow-extrapolation): x." {
		t.Errorf("lines %q", l)
	}
}

// writeCalibrated writes a model with the given calibration and measured
// levels over the fast preset's decode step costs (the rest stays the
// preset's).
func writeCalibrated(t *testing.T, c *fit.Calibration, measured []fit.Measured) string {
	t.Helper()
	fast, err := sim.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	base, perSeq := float64(fast.DecodeBase), float64(fast.DecodePerSeq)
	m := fit.Model{Format: fit.Format, Calibration: c, Measured: measured, Sim: fit.SimParams{DecodeBaseNs: &base, DecodePerSeqNs: &perSeq}}
	path := filepath.Join(t.TempDir(), "calibrated.json")
	if err := atomicfile.WriteNew(path, m.WriteJSON); err != nil {
		t.Fatal(err)
	}
	return path
}

// A --sim-model run past its calibration is refused in one line naming the
// bound, status 2, before any request; --allow-extrapolation only with a
// model; serve-sim refuses an ill-conditioned fit.
func TestSimModelRefusesExtrapolation(t *testing.T) {
	t.Parallel()
	good := writeCalibrated(t, &fit.Calibration{MaxConcurrency: 4, MaxInflight: 4, MaxRate: 2, MaxPrompt: 100, MinOutput: 16, MaxOutput: 32, SlotsKnown: true}, nil)
	loose := writeCalibrated(t, &fit.Calibration{MaxConcurrency: 4, MaxInflight: 4, MaxPrompt: 100, MaxOutput: 32, SlotsKnown: true, IllConditioned: []string{"prefill_base is not identified"}}, nil)
	dir := t.TempDir()
	sweepArgs := func(model string, more ...string) []string {
		return append([]string{"sweep", "--sim", "--sim-preset", "fast", "--sim-model", model, "--requests", "16", "--max-tokens", "32", "--out", filepath.Join(dir, "r")}, more...)
	}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"load", sweepArgs(good, "--levels", "2,9"), "--sim-model calibrated.json refuses this run: concurrency 9 is beyond 2× the largest measured load (4 in flight) (--allow-extrapolation runs it"},
		{"auto", sweepArgs(good, "--levels", "auto", "--slo-ttft-p95", "1s"), "refuses this run: concurrency "},
		{"rate", sweepArgs(good, "--rates", "5"), "rate 5 req/s is beyond 2× the largest measured rate (2 req/s)"},
		{"prompt", sweepArgs(good, "--levels", "2", "--input-tokens", "300"), "tokens is beyond 2× the longest measured (100)"},
		{"output", sweepArgs(good, "--levels", "2", "--max-tokens", "100"), "an output of 100 tokens is beyond 2× the longest measured (32)"},
		{"ill-conditioned", sweepArgs(loose, "--levels", "2"), "refuses this run: the fit is ill-conditioned: prefill_base is not identified"},
		{"flag without a model", []string{"sweep", "--sim", "--allow-extrapolation", "--levels", "1", "--out", filepath.Join(dir, "r2")}, "--allow-extrapolation applies only to --sim-model"},
		{"flag with --url", []string{"sweep", "--url", "http://127.0.0.1:1/v1", "--allow-extrapolation", "--levels", "1"}, "--allow-extrapolation applies only to --sim"},
		{"serve-sim", []string{"serve-sim", "--addr", "127.0.0.1:0", "--sim-model", loose}, "the fit is ill-conditioned"},
		{"serve-sim flag without a model", []string{"serve-sim", "--addr", "127.0.0.1:0", "--allow-extrapolation"}, "--allow-extrapolation applies only to --sim-model"},
	} {
		code, _, stderr := runCLI(t, context.Background(), tt.args...)
		if code != ExitUsage || !strings.Contains(stderr, tt.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%s: exit %d, stderr %q, want status 2 and one line containing %q", tt.name, code, stderr, tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "r", "requests.jsonl")); err == nil {
		t.Error("a refused run wrote requests")
	}
}

// A run of a fitted model records the model (its file's base name, hash
// and parameters), runs past its calibration only with
// --allow-extrapolation and then says so (stderr, stdout, summary.json,
// report.html), and grades each level the model measured: C=2 of the
// saved run, whose figures the model carries, against the run's own C=2.
func TestSimModelRunIsRecordedAndGraded(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "m.json")
	if code, _, stderr := runCLI(t, context.Background(), "fit", "--out", path, smallRun); code != ExitOK {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var model fit.Model
	if err := json.Unmarshal(raw, &model); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := runCLI(t, context.Background(), "sweep", "--sim", "--sim-preset", "fast", "--sim-model", path, "--allow-extrapolation",
		"--levels", "2,8", "--requests", "8", "--max-tokens", "32", "--out", out)
	if code != ExitOK {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	var sum report.Summary
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	sm := sum.SimModel
	if sm == nil || sm.File != "m.json" || sm.SHA256 != sha256Hex(raw) || len(sm.Sim) != len(model.Sim.Params()) || sm.Sim["decode_base_ns"] != *model.Sim.DecodeBaseNs {
		t.Errorf("sim_model %+v", sm)
	}
	for _, want := range []string{"the fit is ill-conditioned: prefill_base is not identified", "concurrency 8 is beyond 1× (the batch-slot limit was not identified) the largest measured load (4 in flight)"} {
		if sm == nil || !strings.Contains(sm.Caution, want) || !strings.Contains(stderr, "toksweep: caution: the model's predictions are an extrapolation") ||
			!strings.Contains(stdout, "Caution: the predictions are an extrapolation (--allow-extrapolation): ") || !strings.Contains(stdout, want) {
			t.Errorf("the caution lacks %q: summary %+v\nstdout %s\nstderr %s", want, sm, stdout, stderr)
		}
	}
	var measured fit.Measured
	for _, m := range model.Measured {
		if m.Concurrency == 2 {
			measured = m
		}
	}
	var predicted map[string]any
	var whole struct {
		Levels []map[string]any `json:"levels"`
	}
	if err := json.Unmarshal(b, &whole); err != nil {
		t.Fatal(err)
	}
	for _, l := range whole.Levels {
		if l["concurrency"] == 2.0 {
			predicted = l
		}
	}
	if len(sum.Grading) != 1 || sum.Grading[0].Level != "C=2" || len(sum.Grading[0].Figures) != len(fit.GradedFigures) {
		t.Fatalf("grading %+v, want C=2 with %d figures", sum.Grading, len(fit.GradedFigures))
	}
	for i, f := range sum.Grading[0].Figures {
		p, _ := predicted[f.Name].(float64)
		m := measured.Figures[f.Name]
		// summary.json's levels are rounded to 3 decimals
		if f.Name != fit.GradedFigures[i] || math.Abs(f.Predicted-p) > 0.0005+1e-12 || f.Measured != m || f.RelError == nil || *f.RelError != (f.Predicted-m)/m {
			t.Errorf("%s: %+v, want predicted %v (the run's), measured %v (the model's)", f.Name, f, p, m)
		}
	}
	if !strings.Contains(stdout, "Model vs measured at C=2: ttft_p50_ms ") {
		t.Errorf("stdout lacks the grading line:\n%s", stdout)
	}
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--sim-model m.json, sha256 " + sm.SHA256, "Caution: the predictions are an extrapolation", "<caption>Model vs measured", `<td class="l">C=2</td><td class="l">aggregate_output_tps</td>`} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
