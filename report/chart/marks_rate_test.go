package chart

import (
	"strings"
	"testing"

	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// In a rate run the recommended level and the knee are marked at their
// offered rate, labelled with the rate (not at C, the cap, which is 0
// uncapped), and the aggregate chart's note speaks of rates.
func TestRateRunMarksTheOfferedRate(t *testing.T) {
	t.Parallel()
	stats := sweepStats()
	for i := range stats {
		stats[i].Mode, stats[i].Rate, stats[i].Concurrency = sweep.RateMode, float64(stats[i].Concurrency), 0
		stats[i].OfferedRPS, stats[i].AchievedRPS = stats[i].Rate, stats[i].Rate
	}
	slo := report.SLO{DecodeTPS: 100}
	rec := report.Recommend(stats, slo)
	if !rec.Recommended.IsOpen() || rec.Recommended.Load == 0 || rec.Knee.Load == 0 {
		t.Fatalf("want a recommended rate and a knee: %+v", rec)
	}
	charts, err := RunCharts(stats, Options{SLO: &slo})
	if err != nil {
		t.Fatal(err)
	}
	agg := chartNamed(t, stats, Options{SLO: &slo}, AggregateName)
	if !strings.Contains(agg.Note, "at each offered rate") || strings.Contains(agg.Note, "C requests") {
		t.Errorf("aggregate note %q, want the rate mode's caption", agg.Note)
	}
	for _, c := range charts {
		if len(c.Marks) < 2 || c.Marks[0] != (Mark{rec.Recommended, MarkRecommended}) || c.Marks[1] != (Mark{rec.Knee, MarkKnee}) {
			t.Errorf("%s: marks %v, want the recommended rate and the knee first", c.Name, c.Marks)
		}
		if c.Name == TradeoffName {
			continue
		}
		svg := checkSVG(t, c)
		if want := "recommended " + rec.Recommended.Name(); !strings.Contains(svg, want) {
			t.Errorf("%s: no %q in the legend", c.Name, want)
		}
		if strings.Contains(svg, "recommended C=") {
			t.Errorf("%s: the recommended line is labelled with C", c.Name)
		}
	}
}

// The charts against the load are labelled in the levels' mode's words
// (sweep.Words.Axis), in the report's charts and the overlays alike:
// concurrency for a closed loop, sessions for a multi-turn run, the
// offered rate for a rate run. The overlays draw one mode's levels, the
// baseline's: a run of another mode is not drawn on its axis.
func TestChartsAxisIsTheModes(t *testing.T) {
	t.Parallel()
	of := func(mode string) []report.LevelStats {
		stats := sweepStats()
		for i := range stats {
			stats[i].Mode = mode
			if mode == sweep.RateMode {
				stats[i].Rate, stats[i].Concurrency = float64(stats[i].Concurrency), 0
			}
		}
		return stats
	}
	for _, tc := range []struct {
		mode        string
		axis, title string
		other       string // a compared run of another mode, left out
	}{
		{sweep.ClosedMode, "concurrency (requests in flight)", "vs concurrency", sweep.RateMode},
		{sweep.SessionsMode, "concurrent sessions", "vs concurrent sessions", sweep.ClosedMode},
		{sweep.RateMode, "offered rate (req/s)", "vs offered rate", sweep.ClosedMode},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			agg := chartNamed(t, of(tc.mode), Options{}, AggregateName)
			if svg := checkSVG(t, agg); !strings.Contains(svg, ">"+tc.axis+"<") || !strings.Contains(agg.Title, tc.title) {
				t.Errorf("%s: title %q, want %q and the axis %q", AggregateName, agg.Title, tc.title, tc.axis)
			}
			charts, err := CompareCharts([]Series{{"runs/a", of(tc.mode)}, {"runs/b", of(tc.other)}, {"runs/c", of(tc.mode)[:3]}})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range charts {
				svg := checkSVG(t, c)
				if !strings.Contains(svg, "A: runs/a") || !strings.Contains(svg, "C: runs/c") || strings.Contains(svg, "B: runs/b") {
					t.Errorf("%s: want runs A and C drawn, not B (mode %s)", c.Name, tc.other)
				}
				if c.Name == CompareDecodeName && (!strings.Contains(svg, ">"+tc.axis+"<") || !strings.Contains(c.Title, tc.title)) {
					t.Errorf("%s: title %q, want %q and the axis %q", c.Name, c.Title, tc.title, tc.axis)
				}
			}
		})
	}
}
