package chart

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/report"
)

// TestStallsChart: the stall chart plots stall_share and 1 − smooth_share
// in percent against C, and skips a level without them.
func TestStallsChart(t *testing.T) {
	stats := []report.LevelStats{
		{Concurrency: 1, StallShare: 0, SmoothShare: 1},
		{Concurrency: 8, StallShare: 0.25, SmoothShare: 0.5},
		{Concurrency: 16, StallShare: math.NaN(), SmoothShare: math.NaN()},
	}
	levels := report.GroupByKey(stats)
	stalled, waited := series(levels, stalledPct), series(levels, waitedPct)
	if len(stalled) != 2 || stalled[1].X != 8 || stalled[1].Y != 25 || len(waited) != 2 || waited[0].Y != 0 || waited[1].Y != 50 {
		t.Fatalf("stalled %v, waited %v; want (1,0) (8,25) and (1,0) (8,50)", stalled, waited)
	}
	c, err := stallsChart(levels, Options{})
	if err != nil {
		t.Fatal(err)
	}
	svg := checkSVG(t, c)
	for _, want := range []string{"Requests that stalled vs concurrency", "stalled (a gap &gt; 1 s between tokens)", "made a 6 tok/s reader wait"} {
		if !strings.Contains(svg, want) {
			t.Errorf("stalls.svg lacks %q", want)
		}
	}
	// The whole 0–100% scale, plus the legend's room above the data.
	if c.Plot.Y.Min != 0 || c.Plot.Y.Max < 100 || c.Plot.Y.Max > 120 {
		t.Errorf("y axis %v..%v, want 0..100%% and room for the legend (a share)", c.Plot.Y.Min, c.Plot.Y.Max)
	}
}

// TestShareTicksStopAt100: the stall chart's axis runs above 100 to make
// room for its legend, but a share is never labelled above 100%.
func TestShareTicksStopAt100(t *testing.T) {
	t.Parallel()
	ticks := shareTicks{}.Ticks(0, 150)
	top := 0.0
	for _, tk := range ticks {
		top = max(top, tk.Value)
	}
	if len(ticks) == 0 || top != 100 {
		t.Errorf("ticks %v: want labels up to 100, none beyond", ticks)
	}
}

// TestThinTicks: the levels of an auto run's bisection (32, 33, 34, 36,
// 40) are labelled only where they do not run into each other.
func TestThinTicks(t *testing.T) {
	t.Parallel()
	cs := []float64{1, 2, 4, 8, 16, 32, 33, 34, 36, 40, 48, 64}
	if got, want := thinTicks(cs, true), []float64{1, 2, 4, 8, 16, 32, 48, 64}; !slices.Equal(got, want) {
		t.Errorf("log axis: %v, want %v", got, want)
	}
	if got, want := thinTicks([]float64{1, 2, 3, 4}, false), []float64{1, 2, 3, 4}; !slices.Equal(got, want) {
		t.Errorf("linear axis: %v, want %v", got, want)
	}
	if got, want := thinTicks([]float64{10, 50, 98, 100}, false), []float64{10, 50, 100}; !slices.Equal(got, want) {
		t.Errorf("linear axis, the last kept: %v, want %v", got, want)
	}
}

// TestMarkNotesApart: on the trade-off chart the knee's note goes below its
// point and the recommended level's above, so that the notes of two
// neighbouring points do not overlap.
func TestMarkNotesApart(t *testing.T) {
	t.Parallel()
	rec, knee := markOffset(MarkRecommended), markOffset(MarkKnee)
	if !(rec.Y > 0 && knee.Y < 0) {
		t.Errorf("note offsets: recommended %v, knee %v; want one above and one below", rec, knee)
	}
}
