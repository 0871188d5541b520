package search

import (
	"testing"
	"time"

	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// The levels search judges its own mode's level by its key: two repeats
// of C=4 pool (one failing fails the level), and a sessions level at C=4
// is not the closed loop's C=4.
func TestJudgeLevelsByKey(t *testing.T) {
	run := func(mode string, ttft time.Duration, agg float64) report.LevelStats {
		return report.LevelStats{Mode: mode, Concurrency: 4, RequestsOK: 10, TTFTP95: ttft, AggregateOutputTPS: agg}
	}
	stats := []report.LevelStats{
		run(sweep.ClosedMode, 100*time.Millisecond, 300),
		run(sweep.ClosedMode, 900*time.Millisecond, 500),
		run(sweep.SessionsMode, 100*time.Millisecond, 200),
	}
	slo := report.SLO{TTFTP95: 500 * time.Millisecond}
	if pass, agg := JudgeLevels(&stats, slo, sweep.ClosedMode)(4); pass || agg != 400 {
		t.Errorf("closed C=4: pass %v, aggregate %v; want a fail at the repeats' mean 400", pass, agg)
	}
	if pass, agg := JudgeLevels(&stats, slo, sweep.SessionsMode)(4); !pass || agg != 200 {
		t.Errorf("sessions C=4: pass %v, aggregate %v; want a pass at 200", pass, agg)
	}
	if pass, agg := JudgeLevels(&stats, slo, sweep.ClosedMode)(8); !pass || agg != 0 {
		t.Errorf("closed C=8, not run: pass %v, aggregate %v", pass, agg)
	}
}
