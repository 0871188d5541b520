package app

import (
	"strings"
	"testing"

	"github.com/toksweep/toksweep/mode/rate"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// A level line names its level once: a replay's "level speed=2× done …:
// offered 2.4 req/s, …" (before, "speed=2× done (completed): speed 2×
// (offered 2.4 req/s)"); a rate level's keeps RateText, the offered rate
// with the nominal in brackets; a replay level with no offered rate
// recorded adds nothing; a closed loop's has no load.
func TestLevelLineNamesTheLevelOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s          report.LevelStats
		want, once string
	}{
		{report.LevelStats{Mode: sweep.ReplayMode, Rate: 2, OfferedRPS: 2.41, RequestsOK: 4, EndReason: sweep.Completed},
			"level speed=2× done (completed): offered 2.41 req/s, 4 ok, 0 failed", "2×"},
		{report.LevelStats{Mode: sweep.ReplayMode, Rate: 0.5, RequestsOK: 4, EndReason: sweep.Completed},
			"level speed=0.5× done (completed): 4 ok, 0 failed", "0.5×"},
		{report.LevelStats{Mode: sweep.RateMode, Rate: 16, OfferedRPS: 18.23, RequestsOK: 4, EndReason: sweep.Completed},
			"level rate=16/s done (completed): " + rate.Text(18.23, 16) + ", 4 ok, 0 failed", "offered"},
		{report.LevelStats{Mode: sweep.ClosedMode, Concurrency: 4, RequestsOK: 8, EndReason: sweep.Completed},
			"level C=4 done (completed): 8 ok, 0 failed", "C=4"},
	} {
		got := levelLine(tc.s)
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("level line %q\nwant it to begin %q", got, tc.want)
		}
		if n := strings.Count(got, tc.once); n != 1 {
			t.Errorf("level line %q says %q %d times, want once", got, tc.once, n)
		}
	}
}
