package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/toksweep/toksweep/report/htmlreport"
)

// TestChartsFlag: sweep and report write the chart files --charts names,
// SVG only or none, and report.html either way.
func TestChartsFlag(t *testing.T) {
	t.Parallel()
	run := filepath.Join(t.TempDir(), "run")
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--charts", "svg", "--sim", "--sim-preset", "fast",
		"--levels", "1", "--requests", "2", "--max-tokens", "8", "--out", run)
	if code != ExitOK {
		t.Fatalf("sweep: exit %d\n%s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(run, htmlreport.ChartsDir, "*"))
	svgs, _ := filepath.Glob(filepath.Join(run, htmlreport.ChartsDir, "*.svg"))
	if len(files) != 5 || len(svgs) != 5 {
		t.Errorf("sweep --charts svg wrote %q, want 5 SVG files", files)
	}
	out := t.TempDir()
	if code, _, stderr := runCLI(t, context.Background(), "report", "--charts", "none", "--out", out, run); code != ExitOK {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, htmlreport.ChartsDir)); !os.IsNotExist(err) {
		t.Errorf("report --charts none: %s/: %v, want none", htmlreport.ChartsDir, err)
	}
	if _, err := os.Stat(filepath.Join(out, htmlreport.File)); err != nil {
		t.Errorf("report --charts none: %v", err)
	}
}
