package chart

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/toksweep/toksweep/report"
)

// The chart names, which are also their file stems.
const (
	AggregateName       = "aggregate_tps"      // aggregate output tok/s vs concurrency
	DecodeName          = "decode_tps"         // per-stream decode tok/s p50 and p10 vs concurrency
	TTFTName            = "ttft"               // TTFT p50 and p95 vs concurrency
	TradeoffName        = "tradeoff"           // per-stream vs aggregate tok/s, one point per level
	CompareDecodeName   = "compare_decode_tps" // decode p50 vs concurrency, one line per run
	CompareTradeoffName = "compare_tradeoff"   // the trade-off curve of every run
)

// Options tunes RunCharts.
type Options struct {
	// SLODecodeTPS, when positive, is drawn on the decode chart as a
	// horizontal line: the per-stream decode rate the SLO asks for.
	SLODecodeTPS float64
}

// Series is one run's figures, for the overlays.
type Series struct {
	Name  string
	Stats []report.LevelStats
}

// RunCharts builds the four charts of one run, in this order: aggregate
// output tok/s, per-stream decode tok/s (p50, p10 and the SLO line), TTFT
// (p50, p95) against concurrency, and the throughput–interactivity
// trade-off.
func RunCharts(stats []report.LevelStats, opts Options) ([]Chart, error) {
	levels := report.GroupByConcurrency(stats)
	var charts []Chart
	for _, build := range []func([]report.LevelGroup, Options) (Chart, error){aggregateChart, decodeChart, ttftChart, tradeoffChart} {
		c, err := build(levels, opts)
		if err != nil {
			return nil, err
		}
		charts = append(charts, c)
	}
	return charts, nil
}

func aggregateChart(levels []report.LevelGroup, _ Options) (Chart, error) {
	const title = "Aggregate output tok/s vs concurrency"
	p := newPlot(title, "concurrency (C)", "output tok/s (steady-state window)", topLeft)
	err := addSeries(p, "aggregate output tok/s", series(levels, aggregate), 0, false)
	return finish(p, AggregateName, title, levels), err
}

func decodeChart(levels []report.LevelGroup, opts Options) (Chart, error) {
	const title = "Per-stream decode tok/s vs concurrency"
	p := newPlot(title, "concurrency (C)", "decode tok/s per stream", topRight)
	err := addSeries(p, "p50", series(levels, decodeP50), 0, false)
	if err == nil {
		err = addSeries(p, "p10 (slowest tenth)", series(levels, decodeP10), 1, false)
	}
	if err == nil && opts.SLODecodeTPS > 0 {
		err = addSLO(p, opts.SLODecodeTPS)
	}
	return finish(p, DecodeName, title, levels), err
}

// addSLO draws the SLO target as a dashed horizontal line.
func addSLO(p *plot.Plot, target float64) error {
	f := plotter.NewFunction(func(float64) float64 { return target })
	f.Color, f.Width = palette[6], vg.Points(1.25)
	f.Dashes = []vg.Length{vg.Points(4), vg.Points(4)}
	p.Add(f)
	p.Legend.Add("SLO target "+strconv.FormatFloat(target, 'g', 4, 64)+" tok/s", f)
	p.Y.Max = max(p.Y.Max, 1.05*target)
	return nil
}

func ttftChart(levels []report.LevelGroup, _ Options) (Chart, error) {
	const title = "Time to first token vs concurrency"
	p := newPlot(title, "concurrency (C)", "TTFT ms (queueing + prefill)", topLeft)
	err := addSeries(p, "p50", series(levels, ttftP50), 0, false)
	if err == nil {
		err = addSeries(p, "p95", series(levels, ttftP95), 1, true)
	}
	return finish(p, TTFTName, title, levels), err
}

func tradeoffChart(levels []report.LevelGroup, _ Options) (Chart, error) {
	const title = "Throughput vs interactivity (one point per level)"
	p := newPlot(title, "aggregate output tok/s (server)", "decode tok/s p50 (per user)", topRight)
	xys, labels, _ := tradeoff(levels)
	err := addSeries(p, "", xys, 0, false)
	if err == nil {
		err = addLabels(p, xys, labels)
	}
	roomForLabels(p)
	return Chart{Name: TradeoffName, Title: title, Plot: p}, err
}

// CompareCharts overlays runs: per-stream decode tok/s p50 against
// concurrency, and the trade-off curves. Run i is drawn in style i and
// named "A: NAME", "B: NAME", … in the legend, as compare names them.
func CompareCharts(runs []Series) ([]Chart, error) {
	const decTitle, tradeTitle = "Per-stream decode tok/s p50 vs concurrency", "Throughput vs interactivity"
	dec := newPlot(decTitle, "concurrency (C)", "decode tok/s p50 per stream", topRight)
	trade := newPlot(tradeTitle, "aggregate output tok/s (server)", "decode tok/s p50 (per user)", topRight)
	var all []report.LevelGroup
	for i, r := range runs {
		levels := report.GroupByConcurrency(r.Stats)
		name := string(rune('A'+i%26)) + ": " + r.Name
		if err := addSeries(dec, name, series(levels, decodeP50), i, false); err != nil {
			return nil, err
		}
		xys, labels, cs := tradeoff(levels)
		if err := addSeries(trade, name, xys, i, false); err != nil {
			return nil, err
		}
		// The curves run side by side: label a level once, on the first
		// run that has it, or the labels pile up.
		for j, c := range cs {
			if slices.ContainsFunc(all, func(l report.LevelGroup) bool { return l.X() == c }) {
				labels[j] = ""
			}
		}
		if err := addLabels(trade, xys, labels); err != nil {
			return nil, err
		}
		all = append(all, levels...)
	}
	roomForLabels(trade)
	return []Chart{
		finish(dec, CompareDecodeName, decTitle, all),
		{Name: CompareTradeoffName, Title: tradeTitle, Plot: trade},
	}, nil
}

// addLabels writes "C=n" next to each point.
func addLabels(p *plot.Plot, xys plotter.XYs, labels []string) error {
	if len(xys) == 0 {
		return nil
	}
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font.Typeface, l.TextStyle[i].Font.Variant = sans.Typeface, sans.Variant
		l.TextStyle[i].Font.Size = vg.Points(9)
	}
	l.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(3)}
	p.Add(l)
	return nil
}

// roomForLabels starts both axes of a trade-off chart at 0 and leaves room
// on the right for the last point's label.
func roomForLabels(p *plot.Plot) {
	p.X.Min, p.Y.Min = 0, 0
	p.X.Max, p.Y.Max = 1.08*p.X.Max, 1.05*p.Y.Max
}

// finish puts the concurrency axis under a plot of figures against C and
// starts the y axis at 0.
// An open-loop sweep's levels are offered rates: the axis and the title
// say so.
func finish(p *plot.Plot, name, title string, levels []report.LevelGroup) Chart {
	var cs []float64
	for _, l := range levels {
		cs = append(cs, l.X())
	}
	slices.Sort(cs)
	concurrencyAxis(p, slices.Compact(cs))
	p.Y.Min, p.Y.Max = 0, 1.05*p.Y.Max
	if slices.ContainsFunc(levels, func(l report.LevelGroup) bool { return l.Rate > 0 }) {
		title = strings.Replace(title, "vs concurrency", "vs offered rate", 1)
		p.Title.Text, p.X.Label.Text = title, "offered rate (req/s, open loop)"
	}
	return Chart{Name: name, Title: title, Plot: p}
}

// concurrencyAxis makes the x axis logarithmic when the levels span a
// factor of 4 or more, with a tick at each level (at powers of 2 when there
// are more than 12).
func concurrencyAxis(p *plot.Plot, cs []float64) {
	if len(cs) == 0 {
		return
	}
	lo, hi := cs[0], cs[len(cs)-1]
	// Leave a margin so the first and last points are not on the frame.
	switch {
	case lo == hi:
		p.X.Min, p.X.Max = lo-1, lo+1
	case lo > 0 && hi >= 4*lo:
		p.X.Scale = plot.LogScale{}
		p.X.Min, p.X.Max = lo/1.15, hi*1.15
	default:
		margin := 0.05 * (hi - lo)
		p.X.Min, p.X.Max = lo-margin, hi+margin
	}
	ticks := cs
	if len(cs) > 12 {
		ticks = nil
		for c := 1.0; c <= hi; c *= 2 {
			if c >= lo {
				ticks = append(ticks, c)
			}
		}
	}
	var marks plot.ConstantTicks
	for _, c := range ticks {
		marks = append(marks, plot.Tick{Value: c, Label: strconv.FormatFloat(c, 'g', -1, 64)})
	}
	p.X.Tick.Marker = marks
}

// series is figure f against concurrency, the mean over repetitions,
// skipping levels where f is undefined.
func series(levels []report.LevelGroup, f func(report.LevelStats) float64) plotter.XYs {
	var xys plotter.XYs
	for _, l := range levels {
		if y := meanOf(l.Runs, f); !math.IsNaN(y) {
			xys = append(xys, plotter.XY{X: l.X(), Y: y})
		}
	}
	return xys
}

// tradeoff is decode p50 against aggregate output tok/s, one point per
// level, with "C=n" labels and each point's concurrency.
func tradeoff(levels []report.LevelGroup) (xys plotter.XYs, labels []string, cs []float64) {
	for _, l := range levels {
		x, y := meanOf(l.Runs, aggregate), meanOf(l.Runs, decodeP50)
		if math.IsNaN(x) || math.IsNaN(y) {
			continue
		}
		if n := len(xys); n > 0 && near(xys[n-1], plotter.XY{X: x, Y: y}) {
			// Saturated levels land on one spot: one label, "C=32,64".
			labels[n-1] += "," + strconv.FormatFloat(l.X(), 'g', -1, 64)
			labels = append(labels, "")
		} else {
			labels = append(labels, strings.Replace(l.Name(), " C≤", " ≤", 1))
		}
		xys, cs = append(xys, plotter.XY{X: x, Y: y}), append(cs, l.X())
	}
	return xys, labels, cs
}

// near reports whether two trade-off points are within 2% of each other
// on both axes, so their labels would overlap.
func near(a, b plotter.XY) bool {
	close := func(u, v float64) bool { return math.Abs(u-v) <= 0.02*max(math.Abs(u), math.Abs(v)) }
	return close(a.X, b.X) && close(a.Y, b.Y)
}

// meanOf is report.Mean of figure f over the repetitions of a level.
func meanOf(stats []report.LevelStats, f func(report.LevelStats) float64) float64 {
	xs := make([]float64, len(stats))
	for i, s := range stats {
		xs[i] = f(s)
	}
	return report.Mean(xs)
}

func aggregate(s report.LevelStats) float64 { return s.AggregateOutputTPS }
func decodeP50(s report.LevelStats) float64 { return s.DecodeTPSP50 }
func decodeP10(s report.LevelStats) float64 { return s.DecodeTPSP10 }
func ttftP50(s report.LevelStats) float64   { return report.Ms(s.TTFTP50) }
func ttftP95(s report.LevelStats) float64   { return report.Ms(s.TTFTP95) }
