//go:build unix

package app

import (
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// TestParallelSweepsDefaultOut: N sweep --sim processes started together
// with the default --out all succeed, into N distinct directories that each
// hold one whole, valid run.
func TestParallelSweepsDefaultOut(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	cwd := t.TempDir()
	const n = 4
	var wg sync.WaitGroup
	outs := make([][]byte, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			cmd := toksweepCmd(bin, smallSim...)
			cmd.Dir = cwd
			outs[i], errs[i] = cmd.CombinedOutput()
		})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Errorf("run %d: %v\n%s", i, errs[i], outs[i])
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(cwd, "results", "*"))
	if len(dirs) != n {
		t.Fatalf("%d run directories %v, want %d", len(dirs), dirs, n)
	}
	for _, dir := range dirs {
		checkFilesValid(t, dir)
		rows := readLevels(t, dir)
		var levels []string
		for _, r := range rows {
			levels = append(levels, r["concurrency"])
		}
		if !slices.Equal(levels, []string{"1", "2"}) {
			t.Errorf("%s: levels %v, want [1 2]", dir, levels)
		}
		if recs := readRecords(t, dir); len(recs) != 4 {
			t.Errorf("%s: %d records, want 2 per level", dir, len(recs))
		}
		var sum struct {
			EndReason string `json:"end_reason"`
			Levels    []any  `json:"levels"`
		}
		readJSON(t, filepath.Join(dir, "summary.json"), &sum)
		if sum.EndReason != "completed" || len(sum.Levels) != 2 {
			t.Errorf("%s: summary end_reason %q with %d levels", dir, sum.EndReason, len(sum.Levels))
		}
	}
}
