package app

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/rundir"
)

// Saved runs of different modes share no level: the closed loop's C=2 is
// not the sessions run's, and the rate run's levels pair with neither; nor
// do two closed loops run at different C. compare then fails with one line
// that names the levels only in each run (and the modes when they differ),
// exits 1, and writes nothing: no table on stdout, no compare.csv, no chart.
// Before, the closed C=2 and the sessions C=2 were compared as one level;
// later, compare printed the runs and wrote compare.csv and the charts
// before it failed.
func TestCompareRunsThatShareNoLevel(t *testing.T) {
	t.Parallel()
	runs := filepath.Join("..", "testdata", "runs")
	shifted := shiftedCopy(t, 100)
	for _, tc := range []struct {
		name, other, why string
	}{
		{"sessions", filepath.Join(runs, "sessions"), "(only in A: C=1,2,4; only in B: C=2; A ran mode closed, B ran mode sessions; a level pairs only with a level of its own mode)"},
		{"rate", filepath.Join(runs, "rate"), "(only in A: C=1,2,4; only in B: rate=8/s, rate=16/s; A ran mode closed, B ran mode rate; a level pairs only with a level of its own mode)"},
		{"closed at other C", shifted, "(only in A: C=1,2,4; only in B: C=101,102,104)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "cmp")
			code, stdout, stderr := runCLI(t, context.Background(), "compare", "--charts", "svg", "--out", out, savedRun, tc.other)
			want := "toksweep: the runs share no level with " + savedRun + ": nothing to compare " + tc.why + "\n"
			// Warnings about the runs (their workloads differ) may come first.
			if code != ExitFailure || !(stderr == want || strings.HasSuffix(stderr, "\n"+want)) || strings.Contains(stderr, "wrote") {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d, ending in one line:\n%s", code, stderr, ExitFailure, want)
			}
			if stdout != "" {
				t.Errorf("stdout:\n%s\nwant nothing", stdout)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				entries, _ := os.ReadDir(out)
				t.Errorf("compare made %s (%d files), want nothing written", out, len(entries))
			}
		})
	}
}

// shiftedCopy is a copy of the saved run with every level's C raised by
// by, in requests.jsonl and summary.json alike.
func shiftedCopy(t *testing.T, by int) string {
	t.Helper()
	dir := rewrittenCopy(t, savedRun, func(r *client.Record) { r.Concurrency += by })
	path := filepath.Join(dir, rundir.SummaryFile)
	summary, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := regexp.MustCompile(`"concurrency": (\d+)`)
	summary = c.ReplaceAllFunc(summary, func(m []byte) []byte {
		n, _ := strconv.Atoi(string(c.FindSubmatch(m)[1]))
		return []byte(`"concurrency": ` + strconv.Itoa(n+by))
	})
	if err := os.WriteFile(path, summary, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
