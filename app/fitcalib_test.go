package app

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/sim"
	"github.com/toksweep/toksweep/sim/fit"
)

// fit --url refuses what it cannot run, in one line with status 2, before
// any request.
func TestFitURLRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "m.json")
	url := "http://127.0.0.1:1/v1"
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"runs and --url", []string{"fit", "--url", url, "--out", out, smallRun}, "fit --url calibrates the server and fits its own runs"},
		{"short bound", []string{"fit", "--url", url, "--out", out, "--calibrate-for", "2s"}, "invalid --calibrate-for 2s: want at least 5s"},
		{"ladder", []string{"fit", "--url", url, "--out", out, "--calibrate-max-concurrency", "1"}, "invalid --calibrate-max-concurrency 1: want 2 to 4096"},
		{"runs dir exists", []string{"fit", "--url", url, "--out", out, "--calibrate-out", dir}, "fit --calibrate-out " + dir + ": it exists already"},
		{"a calibration flag without --url", []string{"fit", "--out", out, "--calibrate-for", "1m", smallRun}, "--calibrate-for applies only to fit --url"},
	} {
		code, _, stderr := runCLI(t, context.Background(), tt.args...)
		if code != ExitUsage || !strings.Contains(stderr, tt.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%s: exit %d, stderr %q, want status 2 and one line containing %q", tt.name, code, stderr, tt.want)
		}
	}
}

// The ladder doubles up to the bound, and each level's phase shares
// levelShare of the time among every level that may run.
func TestCalibrationPlan(t *testing.T) {
	c := calibOptions{URL: "http://h/v1", For: 2 * time.Minute, MaxConcurrency: 48, Dir: "d"}
	if got := c.ladder(); len(got) != 7 || got[5] != 32 || got[6] != 48 {
		t.Errorf("ladder %v, want 1 … 32, 48", got)
	}
	// 0.6 × 120s over 7 + 2 levels
	if got := c.levelTime(); got != 8*time.Second {
		t.Errorf("level time %v, want 8s", got)
	}
	if p := c.plan(); !strings.Contains(p, "for at most 2m0s, 8s a level, runs in d: concurrency 1, 2, 4, … up to 48") {
		t.Errorf("plan %q", p)
	}
}

// fit --url calibrates a simulator with hidden parameters (drawn, seeded;
// the fit sees only what it measures) within about its bound, keeps its
// runs, and fits the parameters back: the tolerances of
// TestFitRecoversHiddenSimulator (fitMisses), retried as there.
func TestFitURLRecoversHiddenSimulator(t *testing.T) {
	t.Parallel()
	h := drawHidden(2)
	cfg, err := sim.Preset("default")
	if err != nil {
		t.Fatal(err)
	}
	if err := loadSimModel(writeModel(t, h), &cfg); err != nil {
		t.Fatal(err)
	}
	srv, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	addr, err := srv.Start(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	const bound = 10 * time.Second
	var misses []string
	starved := true
	for attempt := range timingAttempts {
		dir := t.TempDir()
		out, runs := filepath.Join(dir, "m.json"), filepath.Join(dir, "runs")
		began := time.Now()
		code, stdout, stderr := runCLI(t, context.Background(), "fit", "--url", "http://"+addr.String()+"/v1", "--out", out,
			"--calibrate-for", bound.String(), "--calibrate-max-concurrency", "16", "--calibrate-out", runs)
		took := time.Since(began)
		if code != ExitOK {
			// On a starved machine a level's bound may end before any of
			// its requests did (no result): that attempt is not judged.
			if !anyStarved(t, runs) {
				t.Fatalf("fit --url: exit %d: %s", code, stderr)
			}
			t.Logf("attempt %d: exit %d on a starved machine: %s", attempt+1, code, finalLine(stderr))
			continue
		}
		if !strings.Contains(stderr, "fit: calibrating http://"+addr.String()+"/v1 for at most 10s") || took > 2*bound {
			t.Errorf("took %v for a %v bound; stderr:\n%s", took, bound, stderr)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		m, err := fit.Read(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		levels, _ := os.ReadDir(runs)
		if len(m.Runs) != len(levels) {
			t.Errorf("%d runs kept, the model names %d", len(levels), len(m.Runs))
		}
		if len(levels) < 4 {
			// A starved level runs long, and the bound then leaves no
			// time for the last shapes: that is the bound working.
			if !anyStarved(t, runs) {
				t.Errorf("%d calibration levels ran in the %v bound, want at least 4 on a machine that was not starved", len(levels), bound)
			}
		}
		if misses = fitMisses(m, h); len(misses) == 0 {
			t.Logf("attempt %d, %v: hidden %+v\n%s", attempt+1, took, h, stdout)
			return
		}
		t.Logf("attempt %d: %s\n%s\n%s", attempt+1, strings.Join(misses, "; "), stdout, stderr)
		for _, l := range levels {
			starved = runStarved(t, filepath.Join(runs, l.Name())) && starved
		}
	}
	if starved {
		t.Logf("fit not compared: the machine starved every attempt; last: %s", strings.Join(misses, "; "))
		return
	}
	t.Errorf("hidden %+v: %s", h, strings.Join(misses, "; "))
}

// anyStarved reports whether any run under dir starved (runStarved).
func anyStarved(t *testing.T, dir string) bool {
	levels, _ := os.ReadDir(dir)
	return slices.ContainsFunc(levels, func(l os.DirEntry) bool { return runStarved(t, filepath.Join(dir, l.Name())) })
}
