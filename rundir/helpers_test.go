package rundir

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/toksweep/toksweep/internal/testkit/recordtest"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

const msec = time.Millisecond

// The record and level builders of report's tests
// (internal/testkit/recordtest), for the run directory's tests: the same
// golden sweep.
var (
	stream       = recordtest.Stream
	failed       = recordtest.Failed
	chunked      = recordtest.Chunked
	openLevel    = recordtest.OpenLevel
	constant     = recordtest.Constant
	goldenLevels = recordtest.GoldenLevels
)

func goldenStats() []report.LevelStats {
	var stats []report.LevelStats
	for _, l := range goldenLevels() {
		stats = append(stats, report.Summarize(l, report.Settings{}))
	}
	return stats
}

func goldenSummary(stats []report.LevelStats) report.Summary {
	s := report.Summary{
		Tool: "toksweep", Version: "v0.0.0-test",
		URL: "http://127.0.0.1:8000/v1", Model: "kimi-k2.5-int4",
		Started:  time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
		Finished: time.Date(2026, 3, 1, 12, 0, 21, 500_000_000, time.UTC),
		Config: &report.RunConfig{
			URL: "http://127.0.0.1:8000/v1", Model: "kimi-k2.5-int4", API: "chat", Levels: []int{1, 4, 8, 16},
			Requests: 32, Repeat: 1, MaxTokens: 128, PromptSource: "default prompt, seed 0",
			RequestTimeout: "10m0s", ConnectTimeout: "10s",
		},
		EndReason: string(sweep.Canceled),
	}
	for _, st := range stats {
		s.Levels = append(s.Levels, report.NewLevelJSON(st))
	}
	return s
}

// checkSavedRerender checks that got, the figures of run read back from
// dir, render the levels.csv and summary.json saved there, byte for byte.
func checkSavedRerender(t *testing.T, dir string, run SavedRun, got []report.LevelStats) {
	t.Helper()
	orig, _ := os.ReadFile(filepath.Join(dir, LevelsFile))
	if g := csvOf(t, got); g != string(orig) {
		t.Errorf("re-rendered levels.csv differs from the saved one:\n got %s\nwant %s", g, orig)
	}
	var b bytes.Buffer
	report.WriteSummaryJSON(&b, run.Resummarized(got))
	saved, _ := os.ReadFile(filepath.Join(dir, SummaryFile))
	if b.String() != string(saved) {
		t.Errorf("re-rendered summary.json differs from the saved one:\n got %s\nwant %s", b.String(), saved)
	}
}
