package app

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/rundir"
)

// TestReadingSpeedRerendered: a sweep at a non-default --reading-speed
// records it, measures its reader at that pace (a reader far faster than
// the simulator waits for every token), and `toksweep report` re-renders
// the same levels.csv and summary.json from requests.jsonl, which it could
// not at the default 6 tok/s (the figures would differ).
func TestReadingSpeedRerendered(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := runCLI(t, context.Background(), "sweep", "--sim", "--sim-preset", "fast",
		"--levels", "1,2", "--requests", "4", "--max-tokens", "16", "--reading-speed", "1e6", "--out", dir)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "reader: 1e+06 tok/s)") {
		t.Errorf("the smoothness table does not name the reader:\n%s", stdout)
	}
	run, err := rundir.ReadRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c := run.Summary.Config; c == nil || c.ReadingSpeed != 1e6 {
		t.Fatalf("summary.json config: %+v, want reading_speed 1e6", c)
	}
	for _, s := range run.Stats() {
		if !(s.SmoothShare < 1) || !(s.RebufferRatioP95 > 1) {
			t.Errorf("C=%d: smooth share %v, rebuffer p95 %v; want < 1, > 1 (a reader at 1e6 tok/s waits)", s.Concurrency, s.SmoothShare, s.RebufferRatioP95)
		}
	}
	var line struct {
		RebufferRatio float64 `json:"rebuffer_ratio"`
	}
	b, err := os.ReadFile(filepath.Join(dir, rundir.RequestsFile))
	if err != nil {
		t.Fatal(err)
	}
	// The largest ratio of the run: on a busy machine a request's tokens
	// can arrive in one read, and its reader then never waits.
	most := 0.0
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		line.RebufferRatio = 0
		if err := json.Unmarshal(l, &line); err != nil {
			t.Fatal(err)
		}
		most = max(most, line.RebufferRatio)
	}
	if !(most > 1) {
		t.Errorf("requests.jsonl: largest rebuffer_ratio %v, want > 1 (written at the run's reading speed)", most)
	}
	out := t.TempDir()
	if code, _, stderr := runCLI(t, context.Background(), "report", "--out", out, dir); code != ExitOK {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	for _, name := range []string{rundir.LevelsFile, rundir.SummaryFile} {
		want, _ := os.ReadFile(filepath.Join(dir, name))
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("re-rendered %s differs (%v):\n got:\n%s\nwant:\n%s", name, err, got, want)
		}
	}
}

// TestReadingSpeedInvalid: a reader that reads nothing is a one-line usage error.
func TestReadingSpeedInvalid(t *testing.T) {
	for _, v := range []string{"0", "-6", "NaN", "+Inf"} {
		code, _, stderr := runCLI(t, context.Background(), "sweep", "--sim", "--levels", "1", "--requests", "1", "--reading-speed", v, "--out", filepath.Join(t.TempDir(), "r"))
		if code != ExitUsage || !strings.Contains(stderr, "invalid --reading-speed") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("--reading-speed %s: exit %d, stderr %q", v, code, stderr)
		}
	}
}
