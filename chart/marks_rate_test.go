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
	if !rec.RecommendedKey.IsOpen() || rec.RecommendedKey.Load == 0 || rec.KneeKey.Load == 0 {
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
		if len(c.Marks) < 2 || c.Marks[0] != (Mark{rec.RecommendedKey, MarkRecommended}) || c.Marks[1] != (Mark{rec.KneeKey, MarkKnee}) {
			t.Errorf("%s: marks %v, want the recommended rate and the knee first", c.Name, c.Marks)
		}
		if c.Name == TradeoffName {
			continue
		}
		svg := checkSVG(t, c)
		if want := "recommended " + rec.RecommendedKey.Name(); !strings.Contains(svg, want) {
			t.Errorf("%s: no %q in the legend", c.Name, want)
		}
		if strings.Contains(svg, "recommended C=") {
			t.Errorf("%s: the recommended line is labelled with C", c.Name)
		}
	}
}
