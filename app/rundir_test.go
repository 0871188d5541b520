package app

import (
	"context"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// smallSim is a sweep of the simulator that takes well under a second.
var smallSim = []string{"sweep", "--sim", "--levels", "1,2", "--requests", "2", "--max-tokens", "8"}

// snapshot reads every file under dir, by path relative to dir.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// sameSnapshot fails unless dir holds exactly the files of want, byte for
// byte.
func sameSnapshot(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	got := snapshot(t, dir)
	if !maps.Equal(got, want) {
		for name := range maps.Keys(want) {
			if got[name] != want[name] {
				t.Errorf("%s changed or vanished (%d bytes, was %d)", name, len(got[name]), len(want[name]))
			}
		}
		for name := range maps.Keys(got) {
			if _, ok := want[name]; !ok {
				t.Errorf("%s appeared", name)
			}
		}
	}
}

// sweepSmallInto runs the small simulator sweep into out and checks it succeeded.
func sweepSmallInto(t *testing.T, out string, extra ...string) {
	t.Helper()
	args := append(append(append([]string{}, smallSim...), "--out", out), extra...)
	if code, _, stderr := runCLI(t, context.Background(), args...); code != ExitOK {
		t.Fatalf("sweep into %s: exit %d\n%s", out, code, stderr)
	}
}

// TestFailedSweepKeepsTheEarlierRun: a sweep into the directory of an
// earlier run, with a wrong port, leaves that run intact byte for byte (with
// or without --overwrite), and 'toksweep report' still reads it.
func TestFailedSweepKeepsTheEarlierRun(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "R")
	sweepSmallInto(t, out)
	before := snapshot(t, out)
	url := closedURL(t)
	for _, tc := range []struct {
		extra []string
		code  int
	}{{nil, ExitUsage}, {[]string{"--overwrite"}, ExitFailure}} {
		args := append([]string{"sweep", "--url", url, "--levels", "1", "--requests", "1", "--out", out}, tc.extra...)
		code, _, stderr := runCLI(t, context.Background(), args...)
		if code != tc.code || len(lines(stderr)) != 1 {
			t.Errorf("%v: exit %d, want %d with one line:\n%s", tc.extra, code, tc.code, stderr)
		}
		sameSnapshot(t, out, before)
		entries, _ := os.ReadDir(filepath.Dir(out))
		if len(entries) != 1 {
			t.Errorf("%v: the parent holds %d entries, want R alone", tc.extra, len(entries))
		}
	}
	if code, _, stderr := runCLI(t, context.Background(), "report", "--out", t.TempDir(), out); code != ExitOK {
		t.Errorf("report of the earlier run: exit %d\n%s", code, stderr)
	}
}

// TestSecondSweepNeedsOverwrite: a second successful sweep into the same
// --out is refused (exit 2, one line naming --overwrite) and leaves the run
// as it was; --overwrite refuses too while a file no run writes is beside
// it (issue 25, item 1: it was deleted with the run); without that file,
// --overwrite replaces the run whole: nothing of the earlier one survives,
// and nothing is left beside it.
func TestSecondSweepNeedsOverwrite(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	out := filepath.Join(parent, "R")
	sweepSmallInto(t, out)
	if err := os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, out)
	code, _, stderr := runCLI(t, context.Background(), append(append([]string{}, smallSim...), "--out", out)...)
	if code != ExitUsage {
		t.Fatalf("second sweep: exit %d, want 2\n%s", code, stderr)
	}
	if ls := lines(stderr); len(ls) != 1 || !strings.Contains(ls[0], "--overwrite") || !strings.Contains(ls[0], out) {
		t.Errorf("want one line naming %s and --overwrite:\n%s", out, stderr)
	}
	sameSnapshot(t, out, before)
	code, _, stderr = runCLI(t, context.Background(), append(append([]string{}, smallSim...), "--out", out, "--overwrite")...)
	if ls := lines(stderr); code != ExitUsage || len(ls) != 1 || !strings.Contains(ls[0], "notes.txt, which no toksweep run writes") {
		t.Errorf("--overwrite beside notes.txt: exit %d, want 2 and one line naming it:\n%s", code, stderr)
	}
	sameSnapshot(t, out, before)
	if err := os.Remove(filepath.Join(out, "notes.txt")); err != nil {
		t.Fatal(err)
	}

	var sum struct{ Started time.Time }
	readJSON(t, filepath.Join(out, "summary.json"), &sum)
	first := sum.Started
	sweepSmallInto(t, out, "--overwrite")
	readJSON(t, filepath.Join(out, "summary.json"), &sum)
	if !sum.Started.After(first) {
		t.Errorf("summary.json started %v, want the second run's (after %v)", sum.Started, first)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 1 {
		t.Errorf("the parent holds %d entries, want R alone (the earlier run deleted)", len(entries))
	}
	if _, err := os.Stat(filepath.Join(out, ".toksweep.lock")); !os.IsNotExist(err) {
		t.Errorf("lock file left behind: %v", err)
	}
	checkFilesValid(t, out)
}

// TestDefaultOutIsUnique: runs with the default --out whose second is
// already taken get a -2, -3 ... suffix, and the taken one is not touched.
// Every second from just before the test to two minutes after it is
// planted, so the runs collide however slow the machine is.
func TestDefaultOutIsUnique(t *testing.T) {
	t.Chdir(t.TempDir())
	now := time.Now()
	var planted []string
	for s := -2; s <= 120; s++ {
		dir := filepath.Join("results", now.Add(time.Duration(s)*time.Second).Format("20060102-150405"))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "summary.json"), []byte("earlier"), 0o644); err != nil {
			t.Fatal(err)
		}
		planted = append(planted, dir)
	}
	for range 2 {
		code, _, stderr := runCLI(t, context.Background(), smallSim...)
		if code != ExitOK {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
	}
	for _, dir := range planted {
		if b, _ := os.ReadFile(filepath.Join(dir, "summary.json")); string(b) != "earlier" {
			t.Errorf("%s: the planted run was overwritten", dir)
		}
	}
	runs, _ := filepath.Glob("results/*-2")
	more, _ := filepath.Glob("results/*-3")
	if len(runs) == 0 || len(runs)+len(more) != 2 {
		t.Fatalf("runs in %v %v, want two suffixed directories", runs, more)
	}
	for _, dir := range append(runs, more...) {
		checkFilesValid(t, dir)
		if rows := readLevels(t, dir); len(rows) != 2 {
			t.Errorf("%s: %d levels, want 2", dir, len(rows))
		}
	}
}
