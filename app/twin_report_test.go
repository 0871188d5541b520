package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/internal/testkit/recordtest"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/rundir"
	"github.com/toksweep/toksweep/sweep"
)

// steeredRunDir writes a hand-made steered run into dir: C=4 and C=8 ran
// as calibration levels (one request per worker), C=8 failed there (its
// TTFT 300 ms over the 100 ms SLO) and ran again at full length, where it
// passed (20 ms), and C=12 failed. The live run's levels read the full C=8,
// not its calibration run: its answer is C=8. It returns the live run's
// console tables.
func steeredRunDir(t *testing.T, dir string) string {
	t.Helper()
	d, err := rundir.OpenRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	slo := report.SLO{TTFTP95: 100 * time.Millisecond}
	sum := report.Summary{Tool: "toksweep", Version: "v0.0.0-test", URL: "http://127.0.0.1:1/v1", Model: "m",
		Started: time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC), Finished: time.Date(2026, 12, 7, 12, 1, 0, 0, time.UTC), EndReason: "completed",
		Config: &report.RunConfig{URL: "http://127.0.0.1:1/v1", Model: "m", API: "chat", Mode: sweep.ClosedMode, LevelsAuto: true, AutoMax: 16,
			SLO: &report.SLOConfig{TTFTP95Ms: 100}, Repeat: 1, MaxTokens: 8, PromptSource: "default prompt, seed 0", RequestTimeout: "10m0s", ConnectTimeout: "10s"},
		Twin: &report.TwinJSON{Search: sweep.ClosedMode, Calibration: []string{"C=4", "C=8"}, Remeasured: []string{"C=8"}, Levels: 4}}
	var live []report.LevelStats
	at := time.Duration(0)
	for _, l := range []struct {
		c, repeat, n int // n requests per worker
		ttft         time.Duration
	}{{4, 0, 1, 20 * time.Millisecond}, {8, 0, 1, 300 * time.Millisecond}, {8, 1, 4, 20 * time.Millisecond}, {12, 0, 4, 300 * time.Millisecond}} {
		recs := recordtest.ClosedLoop(l.c, l.n, time.Millisecond, l.ttft, 10*time.Millisecond, 8, 36)
		for i := range recs {
			recs[i].Start += at
			recs[i].FirstToken += at
			recs[i].FirstContent += at
			recs[i].LastToken += at
			recs[i].End += at
			recs[i].Repeat = l.repeat
		}
		lvl := recordtest.Level(l.c, recs...)
		lvl.Mode, lvl.Repeat = sweep.ClosedMode, l.repeat
		s := report.Summarize(lvl, report.Settings{})
		report.Judge(&s, slo)
		at = lvl.End + time.Second
		if err := d.AddLevel(lvl, s); err != nil {
			t.Fatal(err)
		}
		sum.Levels = append(sum.Levels, report.NewLevelJSON(s))
		if l.c == 8 && l.repeat == 1 { // the live rule (twin.add): the full run replaces the calibration run
			live = live[:len(live)-1]
		}
		live = append(live, s)
	}
	recommend(&sum, live, slo)
	if err := d.WriteSummary(sum); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := report.WriteConsole(&b, byConcurrency(live)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// report RUN of a steered run shows the levels the run's own summary
// showed: a calibration run that a full-length run of its level replaced
// is no repeat of that level (it was: a second run of C=8 in every table,
// failing, and a repeat spread of one request per worker against four).
func TestReportOfASteeredRunLeavesOutReplacedCalibrationRuns(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	tables := steeredRunDir(t, dir)
	code, stdout, stderr := runCLI(t, context.Background(), "report", "--charts", "none", dir)
	if code != ExitOK {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	if !strings.HasPrefix(stdout, tables) {
		t.Errorf("report's tables differ from the live run's:\n got %s\nwant %s", stdout, tables)
	}
	if rows := readLevels(t, dir); len(rows) != 4 {
		t.Errorf("levels.csv: %d rows, want the 4 runs (the calibration run's row stays, as the live run wrote it)", len(rows))
	}
}
