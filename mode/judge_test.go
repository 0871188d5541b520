package mode

import (
	"math"
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

// The rate search judges its own key's levels at a load: a replay level at
// speed 2 (its Load 2) and a rate level at 2 req/s of another cap are not
// the uncapped rate level at 2 req/s, whose one failing repeat fails it
// and whose two repeats' rates are its figures.
func TestJudgeRatesByKey(t *testing.T) {
	level := func(mode string, conc int, ttft time.Duration, achieved float64) report.LevelStats {
		return report.LevelStats{Mode: mode, Concurrency: conc, Rate: 2, RequestsOK: 10, TTFTP95: ttft,
			AchievedRPS: achieved, OfferedRPS: achieved + 0.5}
	}
	stats := []report.LevelStats{
		level(sweep.RateMode, 0, 100*time.Millisecond, 1.5),
		level(sweep.RateMode, 0, 900*time.Millisecond, 1.7),
		level(sweep.RateMode, 4, 100*time.Millisecond, 1.9),
		level(sweep.ReplayMode, 0, 100*time.Millisecond, 40),
	}
	slo := report.SLO{TTFTP95: 500 * time.Millisecond}
	cases := []struct {
		at                sweep.LevelKey
		pass              bool
		achieved, offered float64
	}{
		{sweep.LevelKey{Mode: sweep.RateMode}, false, 1.6, 2.1},
		{sweep.LevelKey{Mode: sweep.RateMode, Concurrency: 4}, true, 1.9, 2.4},
		{sweep.LevelKey{Mode: sweep.ReplayMode}, true, 40, 40.5},
	}
	for _, c := range cases {
		v := JudgeRates(&stats, slo, c.at)(2)
		if k := c.at; v.Pass != c.pass || math.Abs(v.Achieved-c.achieved) > 1e-9 || math.Abs(v.Offered-c.offered) > 1e-9 {
			k.Load = 2
			t.Errorf("%s: pass %v, achieved %v, offered %v; want %v, %v, %v", k, v.Pass, v.Achieved, v.Offered, c.pass, c.achieved, c.offered)
		}
	}
	if v := JudgeRates(&stats, slo, sweep.LevelKey{Mode: sweep.RateMode})(3); v.Pass || !math.IsNaN(v.Achieved) {
		t.Errorf("rate 3, not run: %+v; want no pass and no figures", v)
	}
}
