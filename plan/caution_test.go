package plan

import (
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// A client-limited level's caution is worded as the report's closing
// paragraph words it, by its mode, in the plan and the fleet choice alike:
// a closed loop's "C=4 may have been client-limited", an open loop's
// measured "rate=16/s was client-limited".
func TestCautionInItsModesWords(t *testing.T) {
	t.Parallel()
	closed, closedLevels := build([]lvl{{4, 8, 500 * time.Millisecond, yes, false}})
	s16, l16 := rateLevel(16, 15.9, 15.86, 8.3, true, false)
	const tail = "; its figures may describe the load generator, not the server\n"
	for _, tc := range []struct {
		name   string
		stats  []report.LevelStats
		levels []sweep.Level
		want   string
	}{
		{"closed", closed, closedLevels, "  caution: C=4 may have been client-limited" + tail},
		{"rate", []report.LevelStats{s16}, []sweep.Level{l16}, "  caution: rate=16/s was client-limited" + tail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.stats[0].ClientLimited = true
			p, err := fromParts("R", "ttft_p95 ≤ 1s", tc.stats, tc.levels, Options{PeakRPS: 100, Headroom: 0.75})
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			if err := p.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), tc.want) {
				t.Errorf("plan lacks %q:\n%s", tc.want, b.String())
			}
			ch, err := Choose([]Config{{Path: "R", SLO: "ttft_p95 ≤ 1s", Stats: tc.stats, Levels: tc.levels, GPUs: 1}}, fleetOptions)
			if err != nil {
				t.Fatal(err)
			}
			b.Reset()
			if err := ch.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), tc.want) {
				t.Errorf("fleet choice lacks %q:\n%s", tc.want, b.String())
			}
		})
	}
}
