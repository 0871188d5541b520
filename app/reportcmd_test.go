package app

import (
	"bytes"
	"context"
	"flag"
	"html"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/report/chart"
	"github.com/toksweep/toksweep/report/htmlreport"
	"github.com/toksweep/toksweep/rundir"
)

var updateRun = flag.Bool("update-run", false, "re-record the saved run in ../testdata/runs/small with the simulator")

// savedRun is a small real run (simulator, preset fast), committed so that
// re-rendering can be checked against what the sweep itself wrote.
const savedRun = "../testdata/runs/small"

// recordSavedRun re-records savedRun; run it when the levels.csv or
// summary.json format changes: go test ./app -run TestReport -update-run.
func recordSavedRun(t *testing.T) {
	t.Helper()
	if err := os.RemoveAll(savedRun); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--charts", "none", "--sim", "--sim-preset", "fast",
		"--levels", "1,2,4", "--requests", "8", "--max-tokens", "32", "--slo-decode-tps", "900", "--out", savedRun)
	if code != ExitOK {
		t.Fatalf("recording %s: exit %d\n%s", savedRun, code, stderr)
	}
}

// TestReportReproducesSavedRun: re-rendering a saved run from its records
// gives back its levels.csv and summary.json byte for byte, plus the charts
// and report.html. It is the app test about PNG: the charts are written in
// both formats, the default, and the PNGs are 768×480 images.
func TestReportReproducesSavedRun(t *testing.T) {
	t.Parallel()
	if *updateRun {
		recordSavedRun(t)
	}
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), "report", "--charts", "png,svg", "--out", out, savedRun)
	if code != ExitOK {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
	}
	sameRunFiles(t, savedRun, out)
	for _, name := range []string{chart.AggregateName, chart.DecodeName, chart.TTFTName, chart.TradeoffName, chart.StallsName} {
		for _, ext := range chart.Formats {
			if fi, err := os.Stat(filepath.Join(out, htmlreport.ChartsDir, name+"."+ext)); err != nil || fi.Size() == 0 {
				t.Errorf("chart %s.%s: %v", name, ext, err)
			}
		}
		f, err := os.Open(filepath.Join(out, htmlreport.ChartsDir, name+".png"))
		if err != nil {
			continue
		}
		if cfg, err := png.DecodeConfig(f); err != nil || cfg.Width != 768 || cfg.Height != 480 {
			t.Errorf("chart %s.png: %d×%d, %v; want a 768×480 PNG", name, cfg.Width, cfg.Height, err)
		}
		f.Close()
	}
	if _, err := os.Stat(filepath.Join(out, htmlreport.File)); err != nil {
		t.Error(err)
	}
	if !strings.Contains(stdout, "Single stream") || !strings.Contains(stderr, "re-rendered 3 levels") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
}

// TestReportInPlace re-renders a copy of the saved run into itself.
func TestReportInPlace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{rundir.LevelsFile, rundir.RequestsFile, rundir.SummaryFile} {
		b, err := os.ReadFile(filepath.Join(savedRun, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, stderr := runCLI(t, context.Background(), "report", dir); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	want, _ := os.ReadFile(filepath.Join(savedRun, rundir.LevelsFile))
	got, _ := os.ReadFile(filepath.Join(dir, rundir.LevelsFile))
	if !bytes.Equal(got, want) {
		t.Error("levels.csv changed when re-rendered in place")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 5 { // the three files, report.html, charts/
		t.Errorf("directory holds %d entries, want 5 (no temporary files)", len(entries))
	}
}

func TestReportUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"report"}, ExitUsage, "one run directory"},
		{[]string{"report", "a", "b"}, ExitUsage, "one run directory"},
		{[]string{"report", savedRun, "--out", "x"}, ExitUsage, "put flags first"},
		{[]string{"report", filepath.Join(savedRun, "missing")}, ExitFailure, "summary.json"},
	}
	for _, tt := range tests {
		code, _, stderr := runCLI(t, context.Background(), tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", tt.args, code, stderr, tt.code, tt.want)
		}
	}
}

// TestReportHTMLSelfContained: report.html loads nothing from anywhere:
// every src and href is a data: URI or a fragment, but for the one link a
// reader may follow to the full definitions (a link loads nothing), and
// there is no script, stylesheet link or CSS url().
func TestReportHTMLSelfContained(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	if code, _, stderr := runCLI(t, context.Background(), "report", "--out", out, savedRun); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, htmlreport.File))
	if err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(string(b))
	refs := regexp.MustCompile(`(?i)\b(src|href|xlink:href|action|poster)\s*=\s*["']?([^"'\s>]*)`).FindAllStringSubmatch(page, -1)
	images := 0
	for _, m := range refs {
		switch v := m[2]; {
		case strings.HasPrefix(v, "data:image/svg+xml;base64,"):
			images++
		case strings.HasPrefix(v, "#"):
		case m[1] == "href" && v == htmlreport.MetricsURL:
		default:
			t.Errorf("report.html references %s=%.80q", m[1], v)
		}
	}
	if images != 5 {
		t.Errorf("report.html embeds %d charts, want 5", images)
	}
	for _, bad := range []string{"<script", "<link", "url(", "@import", "<iframe"} {
		if strings.Contains(strings.ToLower(page), bad) {
			t.Errorf("report.html contains %q", bad)
		}
	}
	for _, want := range []string{"What the figures mean", "TTFT (time to first token)", `"sim_preset": "fast"`, `<p class="answer">`, `title="decode_tps_p10"`} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// checkRerendered: `toksweep report` re-renders the run in dir into a new
// directory with the same levels.csv and summary.json, byte for byte.
func checkRerendered(t *testing.T, dir string) {
	t.Helper()
	again := filepath.Join(t.TempDir(), "again")
	if code, _, stderr := runCLI(t, context.Background(), "report", "--out", again, dir); code != ExitOK {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	for _, name := range []string{"levels.csv", "summary.json"} {
		was, _ := os.ReadFile(filepath.Join(dir, name))
		now, _ := os.ReadFile(filepath.Join(again, name))
		if string(was) != string(now) {
			t.Errorf("report re-rendered %s differently:\n%s\n%s", name, was, now)
		}
	}
}

// report --out OTHER refuses a directory that holds files, such as
// another run, in one line, and leaves it byte for byte (issue 25, item 3:
// OTHER's summary.json, levels.csv and report.html were replaced).
func TestReportOutRefusesAnotherRun(t *testing.T) {
	t.Parallel()
	a, b := filepath.Join(t.TempDir(), "A"), filepath.Join(t.TempDir(), "B")
	sweepSmallInto(t, a)
	sweepSmallInto(t, b)
	before := snapshot(t, b)
	code, _, stderr := runCLI(t, context.Background(), "report", "--out", b, a)
	if ls := lines(stderr); code != ExitUsage || len(ls) != 1 || !strings.Contains(ls[0], "choose an empty or new directory") {
		t.Errorf("report --out another run: exit %d, want 2 and one line:\n%s", code, stderr)
	}
	sameSnapshot(t, b, before)
	if code, _, stderr := runCLI(t, context.Background(), "report", "--out", a, a); code != ExitOK {
		t.Errorf("report --out DIR DIR (in place): exit %d\n%s", code, stderr)
	}
}
