package app

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/internal/atomicfile"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/report/htmlreport"
)

// checkFailedOutput checks a sweep whose charts or report.html could not
// all be written: exit 1 with one line saying what failed, summary.json
// saying "failed" (not "completed"), every file whole, and no temporary
// file left. On a full disk summary.json itself may not fit: then it must
// still be the in-progress one (no end reason, no finish time).
func checkFailedOutput(t *testing.T, out string, code int, stderr, want string, diskFull bool) {
	t.Helper()
	if code != ExitFailure {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	if line := lastLine(stderr); !strings.Contains(line, "writing charts and report.html") || !strings.Contains(line, want) {
		t.Errorf("last line %q does not say the report could not be written (%s)", line, want)
	}
	var sum struct {
		EndReason string    `json:"end_reason"`
		EndError  string    `json:"end_error"`
		Finished  time.Time `json:"finished"`
		Levels    []any     `json:"levels"`
	}
	readJSON(t, filepath.Join(out, "summary.json"), &sum)
	if sum.EndReason == "failed" && !strings.Contains(sum.EndError, "writing charts and report.html") {
		t.Errorf("summary.json: end_error %q does not say why the run failed", sum.EndError)
	}
	inProgress := sum.EndReason == "" && sum.Finished.IsZero()
	if (sum.EndReason != "failed" && !(diskFull && inProgress)) || len(sum.Levels) != 2 {
		t.Errorf("summary.json: end_reason %q with %d levels, want failed with 2", sum.EndReason, len(sum.Levels))
	}
	if inProgress && !strings.Contains(stderr, "writing summary.json") {
		t.Errorf("summary.json was not finished and stderr does not say so:\n%s", stderr)
	}
	checkFilesValid(t, out)
	filepath.WalkDir(out, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", path)
		}
		return err
	})
}

// TestReportWriteFails: report.html's writer fails part way (an injected
// full disk): no report.html at all, and the run says it failed.
func TestReportWriteFails(t *testing.T) {
	full := errors.New("no space left on device (injected)")
	writeReport = func(dir string, sum report.Summary, stats []report.LevelStats, opts htmlreport.Options) error {
		return atomicfile.Write(filepath.Join(dir, htmlreport.File), func(w io.Writer) error {
			if _, err := w.Write([]byte("<!doctype html><html><body>half a pa")); err != nil {
				return err
			}
			return full
		})
	}
	t.Cleanup(func() { writeReport = htmlreport.WriteAll })
	out := filepath.Join(t.TempDir(), "R")
	code, _, stderr := runCLI(t, context.Background(), append(append([]string{}, smallSim...), "--out", out)...)
	checkFailedOutput(t, out, code, stderr, "injected", false)
	if _, err := os.Stat(filepath.Join(out, htmlreport.File)); !os.IsNotExist(err) {
		t.Errorf("a partial report.html was left: %v", err)
	}
}

// TestFullDiskWhileCharting runs a sweep into a 96 KiB tmpfs: the records
// fit, the charts do not (root on Linux only; skipped where no tmpfs can be
// mounted).
func TestFullDiskWhileCharting(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("needs root on Linux to mount a tmpfs")
	}
	out := t.TempDir()
	if b, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=96k", "tmpfs", out).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, strings.TrimSpace(string(b)))
	}
	t.Cleanup(func() { exec.Command("umount", out).Run() })
	code, _, stderr := runCLI(t, context.Background(), append(append([]string{}, smallSim...), "--out", out)...)
	checkFailedOutput(t, out, code, stderr, "no space left on device", true)
	if rows := readLevels(t, out); len(rows) != 2 {
		t.Errorf("levels.csv has %d rows, want 2", len(rows))
	}
}
