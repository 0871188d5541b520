package app

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/toksweep/toksweep/report/htmlreport"
	"github.com/toksweep/toksweep/rundir"
)

// savedRuns are small real runs against the simulator, one per kind of
// run, committed so that re-rendering can be checked against what the
// sweep (or merge) itself wrote. testdata/runs/small, the closed loop, has
// its own test (TestReportReproducesSavedRun). record re-records one, with
// go test ./app -run TestSavedRunsRerender -update-run; nil keeps the
// run's records (plan's tests are worked out on testdata/runs/slo's
// figures) and re-renders its files in the current format.
var savedRuns = []struct {
	name   string
	record func(t *testing.T, dir string)
}{
	{"slo", nil},
	{"rate", recordSweep("--sim", "--sim-preset", "fast", "--rates", "8,16", "--requests", "16", "--max-tokens", "32",
		"--slo-ttft-p95", "1s", "--slo-e2e-p95", "2s")},
	// bound: no SLO, no knee, every rate stable; plan's bound is worked out on it.
	{"bound", recordSweep("--sim", "--sim-preset", "fast", "--rates", "5,10", "--arrival", "constant", "--duration", "2s", "--max-tokens", "32")},
	{"sessions", recordSweep("--sim", "--sim-preset", "fast", "--levels", "2", "--requests", "6", "--turns", "3",
		"--input-tokens", "200", "--max-tokens", "16", "--think-time", "20ms")},
	{"merged", recordMerged},
	// tiers: a session run judged against four SLO tiers, one met by no
	// level; plan's per-tier figures are worked out on it.
	{"tiers", recordSweep("--sim", "--sim-preset", "fast", "--levels", "1,4,16", "--requests", "48", "--turns", "3",
		"--input-tokens", "200", "--max-tokens", "16", "--slo-tier", "instant:ttft-p95<=1ms", "--slo-tier", "fast:decode>=950",
		"--slo-tier", "steady:decode>=850", "--slo-tier", "bulk:ttft-p95<=1s")},
}

// recordSweep records a run with sweep and these arguments.
func recordSweep(args ...string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		code, _, stderr := runCLI(t, context.Background(), append(append([]string{"sweep", "--charts", "none"}, args...), "--out", dir)...)
		if code != ExitOK {
			t.Fatalf("recording %s: exit %d\n%s", dir, code, stderr)
		}
	}
}

// recordMerged records two shards of a closed loop against one simulator
// and merges them into dir.
func recordMerged(t *testing.T, dir string) {
	t.Helper()
	url := startServeSim(t, "--preset", "fast")
	start := time.Now().Add(2 * time.Second).UTC().Format(time.RFC3339Nano)
	base := t.TempDir()
	var shards []string
	var wg sync.WaitGroup
	for i := range 2 {
		shard := filepath.Join(base, fmt.Sprintf("shard%d", i))
		shards = append(shards, shard)
		wg.Go(func() {
			code, _, stderr := runCLI(t, context.Background(), "sweep", "--charts", "none", "--url", url+"/v1",
				"--levels", "4", "--max-tokens", "32", "--metrics-url", "off", "--shard", fmt.Sprintf("%d/2", i),
				"--start-at", start, "--level-duration", "1s", "--grace", "1s", "--out", shard)
			if code != ExitOK {
				t.Errorf("shard %d: exit %d\n%s", i, code, stderr)
			}
		})
	}
	wg.Wait()
	if code, _, stderr := runCLI(t, context.Background(), append([]string{"merge", "--charts", "none", "--allow-skew", dir}, shards...)...); code != ExitOK {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
}

// TestSavedRunsRerender: report re-renders each saved run's levels.csv
// and summary.json byte for byte from its requests.jsonl.
func TestSavedRunsRerender(t *testing.T) {
	t.Parallel()
	for _, run := range savedRuns {
		t.Run(run.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join("..", "testdata", "runs", run.name)
			if *updateRun {
				rerecord(t, dir, run.record)
			}
			out := t.TempDir()
			if code, _, stderr := runCLI(t, context.Background(), "report", "--charts", "none", "--out", out, dir); code != ExitOK {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			sameRunFiles(t, dir, out)
		})
	}
}

// rerecord records dir anew, or, with no recorder, re-renders its files
// from its own records in the current format.
func rerecord(t *testing.T, dir string, record func(*testing.T, string)) {
	t.Helper()
	if record == nil {
		if code, _, stderr := runCLI(t, context.Background(), "report", "--charts", "none", dir); code != ExitOK {
			t.Fatalf("re-rendering %s: exit %d\n%s", dir, code, stderr)
		}
		for _, name := range []string{htmlreport.ChartsDir, htmlreport.File} {
			if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	record(t, dir)
	for _, name := range []string{htmlreport.ChartsDir, htmlreport.File} {
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
}

// sameRunFiles checks that out's levels.csv and summary.json are the saved
// run's, byte for byte.
func sameRunFiles(t *testing.T, saved, out string) {
	t.Helper()
	for _, name := range []string{rundir.LevelsFile, rundir.SummaryFile} {
		want, err := os.ReadFile(filepath.Join(saved, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("re-rendered %s differs from the saved one (re-record with -update-run if the format changed):\n got:\n%s\nwant:\n%s", name, got, want)
		}
	}
}
