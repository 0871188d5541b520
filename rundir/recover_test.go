package rundir

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// TestFullDiskKeepsLevel: when a level's append to requests.jsonl fails
// (a full disk: the append is made to fail), the level file is kept after
// Close, and report's readers recover the level from it, marked failed,
// with its records' figures; a run killed during a level (no end reason)
// is marked crashed.
func TestFullDiskKeepsLevel(t *testing.T) {
	levels := goldenLevels()[:2]
	for _, tc := range []struct {
		endReason string
		want      sweep.EndReason
	}{{"failed", sweep.Failed}, {"", sweep.Crashed}} {
		dir := filepath.Join(t.TempDir(), "run")
		d, err := OpenRunDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		s0 := report.Summarize(levels[0], report.Settings{})
		if err := d.AddLevel(levels[0], s0); err != nil {
			t.Fatal(err)
		}
		appendLevel = func(*os.File, string) error { return errors.New("no space left on device") }
		l := levels[1]
		for i := range l.Records {
			d.AddRecord(&l.Records[i])
		}
		s1 := report.Summarize(sweep.Level{Concurrency: l.Concurrency, Records: l.Records}, report.Settings{})
		err = d.AddLevel(sweep.Level{Concurrency: l.Concurrency, Repeat: l.Repeat, Rate: l.Rate}, s1)
		appendLevel = copyAppend
		if err == nil {
			t.Fatal("AddLevel succeeded with a failing append")
		}
		sum := goldenSummary([]report.LevelStats{s0})
		sum.EndReason = tc.endReason
		if err := d.WriteSummary(sum); err != nil {
			t.Fatal(err)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, LevelFile)); err != nil {
			t.Fatalf("the level file is gone after a failed append: %v", err)
		}
		for name, read := range map[string]func(string) (SavedRun, error){"ReadRunDir": ReadRunDir, "ScanRunDir": ScanRunDir} {
			run, err := read(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(run.Levels) != 2 {
				t.Fatalf("%s: %d levels, want 2 (the second recovered)", name, len(run.Levels))
			}
			got := run.Stats()[1]
			if got.EndReason != tc.want || got.RequestsOK != s1.RequestsOK || got.RequestsFailed != s1.RequestsFailed || got.TTFTP95 != s1.TTFTP95 {
				t.Errorf("%s: recovered level %s, %d ok, %d failed, TTFT p95 %v; want %s, %d, %d, %v",
					name, got.EndReason, got.RequestsOK, got.RequestsFailed, got.TTFTP95, tc.want, s1.RequestsOK, s1.RequestsFailed, s1.TTFTP95)
			}
			if len(run.Warnings) == 0 {
				t.Errorf("%s: no warning says the level was recovered", name)
			}
		}
	}
}
