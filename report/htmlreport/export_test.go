package htmlreport

import (
	"io"

	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/report/chart"
)

// Write writes report.html to w, as WriteAll does beside the charts: the
// page tests read it from memory.
func Write(w io.Writer, sum report.Summary, stats []report.LevelStats, opts Options) error {
	charts, err := chart.RunCharts(stats, chart.Options{SLO: opts.SLO})
	if err != nil {
		return err
	}
	svgs, err := renderSVG(charts)
	if err != nil {
		return err
	}
	return write(w, sum, stats, charts, svgs, opts)
}
