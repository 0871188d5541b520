package app

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/toksweep/toksweep/plan"
	"github.com/toksweep/toksweep/rundir"
)

// compare of steered runs compares the levels their answers read: C=8's
// calibration run, which its full-length run replaced, is no repeat of C=8
// (it was: two repeats a side, the failing 300 ms of one request per
// worker pooled with the full run's 20 ms).
func TestCompareOfSteeredRunsLeavesOutReplacedCalibrationRuns(t *testing.T) {
	t.Parallel()
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	steeredRunDir(t, a)
	steeredRunDir(t, b)
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), "compare", "--charts", "svg", "--out", out, a, b)
	if code != ExitOK {
		t.Fatalf("compare: exit %d\n%s", code, stderr)
	}
	seen := 0
	for _, row := range readCompareCSV(t, filepath.Join(out, CompareFile)) {
		if row["level"] != "C=8" || row["metric"] != "ttft_p95_ms" {
			continue
		}
		seen++
		if row["baseline_repeats"] != "1" || row["repeats"] != "1" || row["baseline_value"] != "20.000" || row["value"] != "20.000" {
			t.Errorf("C=8's TTFT p95: %s and %s repeats, %s and %s ms; want the full run's alone: 1 and 1, 20.000 and 20.000",
				row["baseline_repeats"], row["repeats"], row["baseline_value"], row["value"])
		}
	}
	if seen != 1 {
		t.Errorf("%d rows of C=8's TTFT p95 in compare.csv, want 1\n%s", seen, stdout)
	}
}

// A saved steered run's kept levels carry their own SLO verdicts: the full
// C=8's pass, not its replaced calibration run's fail.
func TestSavedRunKeptKeepsEachLevelsVerdict(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	steeredRunDir(t, dir)
	run, err := rundir.ScanRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range run.Kept().Stats() {
		got = append(got, fmt.Sprintf("%s#%d pass=%v", s.Key().Name(), s.Repeat, s.SLO != nil && s.SLO.Pass))
	}
	if want := []string{"C=4#0 pass=true", "C=8#1 pass=true", "C=12#0 pass=false"}; !slices.Equal(got, want) {
		t.Errorf("kept levels %v, want %v", got, want)
	}
	if err := run.ScanErr(); err != nil {
		t.Fatal(err)
	}
}

// plan of a steered run, and of several, plans at the run's answer, C=8,
// from its full run: before, C=8's replaced calibration run (failing)
// pooled with it made C=8 fail and the plan rest on C=4.
func TestPlanOfASteeredRunReadsItsAnswer(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	steeredRunDir(t, a)
	steeredRunDir(t, b)
	code, stdout, stderr := runCLI(t, context.Background(), "plan", "--peak-rps", "10", a)
	if code != ExitOK {
		t.Fatalf("plan: exit %d\n%s", code, stderr)
	}
	var one plan.JSON
	readJSON(t, filepath.Join(a, plan.File), &one)
	if one.Level.Key != "C=8" || one.Level.Repeats != 1 {
		t.Errorf("plan at %s (%d repeats), want C=8 (1)\n%s", one.Level.Key, one.Level.Repeats, stdout)
	}
	out := filepath.Join(root, "choice")
	code, stdout, stderr = runCLI(t, context.Background(), "plan", "--peak-rps", "10", "--gpu-hour-usd", "2", "--gpus-per-replica", "1", "--charts", "none", "--out", out, a, b)
	if code != ExitOK {
		t.Fatalf("plan of two runs: exit %d\n%s", code, stderr)
	}
	var several plan.ChoiceJSON
	readJSON(t, filepath.Join(out, plan.File), &several)
	for _, c := range several.Configs {
		if c.Plan == nil || c.Plan.Level.Key != "C=8" || c.Plan.Level.Repeats != 1 {
			t.Errorf("%s: plan %+v, want one at C=8 (1 repeat)\n%s", c.Run, c.Plan, stdout)
		}
	}
}
