package rundir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toksweep/toksweep/report"
)

// earlierRun plants the files of an earlier run in dir and returns them.
func earlierRun(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{SummaryFile: `{"earlier":true}`, LevelsFile: "a,b\n1,2\n", RequestsFile: "{}\n", "report.html": "<p>earlier</p>"}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// sameFiles fails unless dir holds exactly files, byte for byte.
func sameFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names, want []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	for name, b := range files {
		want = append(want, name)
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != b {
			t.Errorf("%s is %q (%v), want %q", name, got, err, b)
		}
	}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("directory holds %v, want %v", names, want)
	}
}

func TestReserveRefusesAnEarlierRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	files := earlierRun(t, dir)
	d, err := ReserveRunDir(dir, RunDirOptions{})
	if err == nil {
		d.Close()
		t.Fatal("ReserveRunDir took a directory holding a run")
	}
	if !errors.Is(err, ErrRunDirNotEmpty) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), dir) {
		t.Errorf("error %q: want one line naming %s, matching ErrRunDirNotEmpty", err, dir)
	}
	sameFiles(t, dir, files) // untouched, and no lock left
	if _, err := OpenRunDir(dir); !errors.Is(err, ErrRunDirNotEmpty) {
		t.Errorf("OpenRunDir: %v, want ErrRunDirNotEmpty", err)
	}
	sameFiles(t, dir, files)
}

func TestOverwriteReplacesTheRunWhole(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "run")
	files := earlierRun(t, dir)

	// Reserved but never begun (the pre-flight failed): nothing changes.
	d, err := ReserveRunDir(dir, RunDirOptions{Overwrite: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, LockFile)); err != nil {
		t.Errorf("no lock while reserved: %v", err)
	}
	d.Close()
	sameFiles(t, dir, files)

	// Begun: the earlier run is aside, whole, until Close deletes it.
	d, err = ReserveRunDir(dir, RunDirOptions{Overwrite: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Begin(); err != nil {
		t.Fatal(err)
	}
	asides, _ := filepath.Glob(filepath.Join(parent, "run.replaced-*"))
	if len(asides) != 1 {
		t.Fatalf("earlier run moved to %v, want one run.replaced-* directory", asides)
	}
	sameFiles(t, filepath.Join(asides[0], "run"), withLock(files))
	checkLevelsCSV(t, filepath.Join(dir, LevelsFile), 0)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 || entries[0].Name() != "run" {
		t.Errorf("parent holds %d entries, want the new run alone", len(entries))
	}
	if _, err := os.Stat(filepath.Join(dir, SummaryFile)); !os.IsNotExist(err) {
		t.Errorf("the earlier run's summary.json survived in the new run: %v", err)
	}
}

func withLock(files map[string]string) map[string]string {
	m := map[string]string{LockFile: fmt.Sprintf("%d\n", os.Getpid())}
	for k, v := range files {
		m[k] = v
	}
	return m
}

func TestRunDirLock(t *testing.T) {
	dir := t.TempDir()
	first, err := ReserveRunDir(dir, RunDirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []RunDirOptions{{}, {Overwrite: true}} {
		second, err := ReserveRunDir(dir, opts)
		if err == nil {
			second.Close()
			t.Fatalf("%+v: a second reservation of a locked directory succeeded", opts)
		}
		msg := err.Error()
		if !errors.Is(err, ErrRunDirInUse) || strings.Contains(msg, "\n") || !strings.Contains(msg, fmt.Sprintf("pid %d", os.Getpid())) {
			t.Errorf("%+v: error %q: want one line naming the holder's pid, matching ErrRunDirInUse", opts, msg)
		}
	}
	if err := first.Begin(); err != nil {
		t.Fatal(err)
	}
	if _, err := ReserveRunDir(dir, RunDirOptions{Overwrite: true}); !errors.Is(err, ErrRunDirInUse) {
		t.Errorf("overwrite of a run in progress: %v, want ErrRunDirInUse", err)
	}
	first.Close()
	if _, err := os.Stat(filepath.Join(dir, LockFile)); !os.IsNotExist(err) {
		t.Errorf("lock file left after Close: %v", err)
	}
}

// TestStaleLock: a lock file that no process holds (left by a killed run)
// does not block the next run.
func TestStaleLock(t *testing.T) {
	if !staleLockTakenOver {
		t.Skip("without flock(2) a stale lock file must be removed by hand")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, LockFile), []byte("999999999\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := OpenRunDir(dir)
	if err != nil {
		t.Fatalf("stale lock: %v", err)
	}
	d.Close()
}

func TestUniqueRunDirs(t *testing.T) {
	stem := filepath.Join(t.TempDir(), "results", "20260301-120000")
	const n = 8
	paths := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			d, err := ReserveRunDir(stem, RunDirOptions{Unique: true})
			if err != nil {
				t.Error(err)
				return
			}
			if err := d.Begin(); err != nil {
				t.Error(err)
			}
			paths[i] = d.Path()
			d.Close()
		})
	}
	wg.Wait()
	want := []string{stem}
	for i := 2; i <= n; i++ {
		want = append(want, fmt.Sprintf("%s-%d", stem, i))
	}
	slices.Sort(paths)
	slices.Sort(want)
	if !slices.Equal(paths, want) {
		t.Errorf("parallel runs got %v, want %v", paths, want)
	}
}

// TestUnbegunRunLeavesNothing: a directory reserved for a run whose checks
// failed is removed again if the reservation created it, and kept (empty)
// if it existed.
func TestUnbegunRunLeavesNothing(t *testing.T) {
	created := filepath.Join(t.TempDir(), "new")
	existing := t.TempDir()
	for _, dir := range []string{created, existing} {
		d, err := ReserveRunDir(dir, RunDirOptions{})
		if err != nil {
			t.Fatal(err)
		}
		d.Close()
	}
	if _, err := os.Stat(created); !os.IsNotExist(err) {
		t.Errorf("the directory the reservation made survived: %v", err)
	}
	if entries, err := os.ReadDir(existing); err != nil || len(entries) != 0 {
		t.Errorf("the existing directory holds %d entries (%v), want none", len(entries), err)
	}
}

func TestLockRunDirExcludesASweep(t *testing.T) {
	dir := t.TempDir()
	d, err := OpenRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LockRunDir(dir); !errors.Is(err, ErrRunDirInUse) {
		t.Errorf("LockRunDir of a run in progress: %v, want ErrRunDirInUse", err)
	}
	d.Close()
	release, err := LockRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReserveRunDir(dir, RunDirOptions{Overwrite: true}); !errors.Is(err, ErrRunDirInUse) {
		t.Errorf("a sweep into a directory being re-rendered: %v, want ErrRunDirInUse", err)
	}
	release()
	if _, err := os.Stat(filepath.Join(dir, LockFile)); !os.IsNotExist(err) {
		t.Errorf("lock file left after release: %v", err)
	}
}

// TestPartialLastLine: a run killed in the middle of a level's append (kill
// -9) leaves a last line without its newline; reading the run keeps the
// records before it, with a warning, while a bad line that is not last (or
// is whole) is still an error.
func TestPartialLastLine(t *testing.T) {
	dir := t.TempDir()
	d, err := OpenRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	levels := goldenLevels()[:2]
	var stats []report.LevelStats
	for _, l := range levels {
		s := report.Summarize(l, report.Settings{})
		stats = append(stats, s)
		if err := d.AddLevel(l, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.WriteSummary(goldenSummary(stats)); err != nil {
		t.Fatal(err)
	}
	d.Close()
	path := filepath.Join(dir, RequestsFile)
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := len(levels[0].Records) + len(levels[1].Records)
	cut := append(append([]byte{}, whole...), `{"concurrency":4,"ttft`...)
	for _, tc := range []struct {
		name     string
		content  []byte
		wantErr  bool
		wantRecs int
	}{
		{"whole", whole, false, n},
		{"cut last line", cut, false, n},
		{"bad whole last line", append(append([]byte{}, whole...), "{oops}\n"...), true, 0},
		{"cut line not last", append(append([]byte{}, `{"concurrency":4,"ttft`+"\n"...), whole...), true, 0},
	} {
		if err := os.WriteFile(path, tc.content, 0o644); err != nil {
			t.Fatal(err)
		}
		run, err := ReadRunDir(dir)
		if (err != nil) != tc.wantErr {
			t.Errorf("%s: error %v, want error %v", tc.name, err, tc.wantErr)
			continue
		}
		if err != nil {
			continue
		}
		got := 0
		for _, l := range run.Levels {
			got += len(l.Records)
		}
		warned := slices.ContainsFunc(run.Warnings, func(w string) bool { return strings.Contains(w, "partial line") })
		if got != tc.wantRecs || warned != (tc.name == "cut last line") {
			t.Errorf("%s: %d records, warnings %q; want %d records, a partial-line warning only for the cut", tc.name, got, run.Warnings, tc.wantRecs)
		}
	}
}
