package chart

import (
	"gonum.org/v1/plot"

	"github.com/toksweep/toksweep/report"
)

// StallsName is the chart of the share of requests that stalled, and of
// those whose reader waited, against concurrency.
const StallsName = "stalls"

// stallsChart draws, per level, the share of successful requests with a
// gap over report.StallGap between tokens (stall_share) and the share whose
// reader at the run's reading speed had to wait (1 − smooth_share), in percent.
func stallsChart(levels []report.LevelGroup, _ Options) (Chart, error) {
	c := newChart(StallsName, "Requests that stalled vs concurrency", "", "% of successful requests", topLeft)
	reader := report.ReaderText(firstRuns(levels))
	c.Note = "How many users saw a pause: a gap over 1 s between tokens, or a " + reader + " reader kept waiting."
	err := c.addSeries("stalled (a gap > 1 s between tokens)", series(levels, stalledPct), 0, false)
	if err == nil {
		err = c.addSeries("made a "+reader+" reader wait", series(levels, waitedPct), 1, true)
	}
	c.Plot.Y.Max = 105                  // a share: the whole scale, so that 2% does not look like 100%
	c.Plot.Y.Tick.Marker = shareTicks{} // the legend's room above 100 gets no ticks
	return c.finish(levels), err
}

// shareTicks are the ticks of a percentage axis: 0 to 100, never beyond,
// however high the axis runs to make room for the legend.
type shareTicks struct{}

func (shareTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range (plainTicks{}).Ticks(lo, min(hi, 100)) {
		if t.Value <= 100 {
			out = append(out, t)
		}
	}
	return out
}

func stalledPct(s report.LevelStats) float64 { return 100 * s.StallShare }
func waitedPct(s report.LevelStats) float64  { return 100 * (1 - s.SmoothShare) }

// firstRuns are the runs of the first level group, nil when there is none.
func firstRuns(levels []report.LevelGroup) []report.LevelStats {
	if len(levels) == 0 {
		return nil
	}
	return levels[0].Runs
}
