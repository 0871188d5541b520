package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// Saved runs of different modes share no level: the closed loop's C=2 is
// not the sessions run's, and the rate run's levels pair with neither.
// compare lists every level as only one run's, says the runs ran different
// modes, and, with nothing compared, exits 1 (as for runs of one mode that
// share no level). Before, the closed C=2 and the sessions C=2 were
// compared as one level.
func TestCompareSavedRunsOfDifferentModes(t *testing.T) {
	t.Parallel()
	runs := filepath.Join("..", "testdata", "runs")
	for _, tc := range []struct {
		other, only, mode string
	}{
		{"sessions", "only in A: C=1,2,4; only in B: C=2)", "B ran mode sessions"},
		{"rate", "only in A: C=1,2,4; only in B: rate=8/s, rate=16/s)", "B ran mode rate"},
	} {
		t.Run(tc.other, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCLI(t, context.Background(), "compare", "--charts", "none", "--out", t.TempDir(),
				savedRun, filepath.Join(runs, tc.other))
			if code != ExitFailure || !strings.Contains(stderr, "share no level") {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d: nothing to compare", code, stderr, ExitFailure)
			}
			want := "B vs A: compared none (" + tc.only + "\nB vs A: A ran mode closed, " + tc.mode + "; a level pairs only with a level of its own mode\n"
			if !strings.Contains(stdout, want) || strings.Contains(stdout, "per-stream decode tok/s p50\n") {
				t.Errorf("stdout:\n%s\nwant %q and no table", stdout, want)
			}
		})
	}
}
