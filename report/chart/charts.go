package chart

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// The chart names, which are also their file stems.
const (
	AggregateName       = "aggregate_tps"      // aggregate output tok/s vs concurrency
	DecodeName          = "decode_tps"         // per-stream decode p50/p10 and e2e p50 tok/s vs concurrency
	TTFTName            = "ttft"               // TTFT p50 and p95 vs concurrency
	TradeoffName        = "tradeoff"           // per-user e2e (and decode) tok/s vs aggregate tok/s, one point per level
	ErrorsName          = "error_rate"         // failed share of requests vs concurrency, when any failed
	CompareDecodeName   = "compare_decode_tps" // decode p50 vs concurrency, one line per run
	CompareTradeoffName = "compare_tradeoff"   // the trade-off curve of every run
)

// Options tunes RunCharts.
type Options struct {
	// SLO, when not nil, is the run's SLO: each criterion is drawn as a
	// dashed horizontal line on the chart of the figure it checks (decode
	// and e2e p10, TTFT p95, error rate), and the recommended level is
	// marked.
	SLO *report.SLO
}

// Series is one run's figures, for the overlays.
type Series struct {
	Name  string
	Stats []report.LevelStats
}

// RunCharts builds the charts of one run, in this order: aggregate output
// tok/s, per-stream tok/s (decode p50 and p10, e2e p50), TTFT (p50, p95)
// against concurrency, the throughput–interactivity trade-off, the requests that stalled
// (stalls.go), and, when any level had a failed request, the error rate. The knee and, with an
// SLO, the recommended level (report.Recommend) are marked on each, and so
// are flagged levels (client-limited).
func RunCharts(stats []report.LevelStats, opts Options) ([]Chart, error) {
	levels := report.GroupByKey(stats)
	rec := report.Recommend(stats, cmpSLO(opts.SLO))
	builds := []func([]report.LevelGroup, Options) (Chart, error){aggregateChart, decodeChart, ttftChart, tradeoffChart, stallsChart}
	if slices.ContainsFunc(stats, func(s report.LevelStats) bool { return s.RequestsFailed > 0 }) {
		builds = append(builds, errorChart)
	}
	var charts []Chart
	for _, build := range builds {
		c, err := build(levels, opts)
		if err == nil {
			err = markLevels(&c, levels, rec)
		}
		if err != nil {
			return nil, err
		}
		charts = append(charts, c)
	}
	return charts, nil
}

// levelWords are the words of the levels' mode (the first level's; the
// closed loop's when there is none).
func levelWords(levels []report.LevelGroup) sweep.Words {
	if len(levels) == 0 {
		return sweep.LevelKey{}.Words()
	}
	return levels[0].Key.Words()
}

// cmpSLO is o, or no criterion at all when o is nil.
func cmpSLO(o *report.SLO) report.SLO {
	if o == nil {
		return report.SLO{}
	}
	return *o
}

func aggregateChart(levels []report.LevelGroup, _ Options) (Chart, error) {
	c := newChart(AggregateName, "Aggregate output tok/s vs concurrency", "", "output tok/s (steady-state window)", topLeft)
	c.Note = "What the server delivers " + levelWords(levels).Caption + "."
	err := c.addSeries("aggregate output tok/s", series(levels, aggregate), 0, false)
	return c.finish(levels), err
}

// decodeChart puts the decode rate beside the e2e rate: the gap between
// them is the wait for the first token (queueing and prefill).
func decodeChart(levels []report.LevelGroup, opts Options) (Chart, error) {
	c := newChart(DecodeName, "Per-stream tok/s vs concurrency: decode and e2e (incl. TTFT)", "", "tok/s per stream", topRight)
	c.Note = "What one user sees while tokens stream (decode) and over the whole request (e2e): the gap is the wait for the first token."
	o := cmpSLO(opts.SLO)
	err := c.addSeries("decode p50", series(levels, decodeP50), 0, false)
	if err == nil {
		err = c.addSeries("decode p10 (slowest tenth)", series(levels, decodeP10), 1, false)
	}
	if err == nil {
		err = c.addSeries("e2e p50 (incl. TTFT)", series(levels, e2eP50), 3, true)
	}
	if err == nil && o.E2ETPS > 0 {
		err = c.addSeries("e2e p10 (slowest tenth)", series(levels, e2eP10), 4, true)
	}
	if err == nil && o.DecodeTPS > 0 {
		err = c.addSLO(fmt.Sprintf("SLO: decode p10 ≥ %s tok/s", fig(o.DecodeTPS)), o.DecodeTPS)
	}
	if err == nil && o.E2ETPS > 0 {
		err = c.addSLO(fmt.Sprintf("SLO: e2e p10 ≥ %s tok/s", fig(o.E2ETPS)), o.E2ETPS)
	}
	return c.finish(levels), err
}

func ttftChart(levels []report.LevelGroup, opts Options) (Chart, error) {
	c := newChart(TTFTName, "Time to first token vs concurrency", "", "TTFT ms (queueing + prefill)", topLeft)
	c.Note = "How long a user waits for the first token: queueing plus prefill."
	err := c.addSeries("p50", series(levels, ttftP50), 0, false)
	if err == nil {
		err = c.addSeries("p95", series(levels, ttftP95), 1, true)
	}
	if o := cmpSLO(opts.SLO); err == nil && o.TTFTP95 > 0 {
		err = c.addSLO("SLO: TTFT p95 ≤ "+o.TTFTP95.String(), report.Ms(o.TTFTP95))
	}
	return c.finish(levels), err
}

func errorChart(levels []report.LevelGroup, opts Options) (Chart, error) {
	c := newChart(ErrorsName, "Failed requests vs concurrency", "", "failed requests, % of measured", topLeft)
	c.Note = "Failed measured requests, any class, as a share of all measured requests (the error columns give the classes)."
	err := c.addSeries("error rate", series(levels, errorPct), 1, false)
	if o := cmpSLO(opts.SLO); err == nil && o.ErrorRate != nil {
		err = c.addSLO(fmt.Sprintf("SLO: error rate ≤ %s%%", fig(100**o.ErrorRate)), 100**o.ErrorRate)
	}
	return c.finish(levels), err
}

// tradeoffChart plots what one user gets against what the server delivers.
// The per-user axis is the e2e rate, which includes the wait for the first
// token: past saturation the decode rate stays put while requests queue, so
// on decode alone the saturated levels would sit on one point.
func tradeoffChart(levels []report.LevelGroup, _ Options) (Chart, error) {
	c := newChart(TradeoffName, "Throughput vs interactivity (one point per level)", "aggregate output tok/s (server)", "tok/s per user", topRight)
	c.Note = "Each point is a level: up and right is better. The e2e rate includes the wait for the first token, so saturated levels, which queue, fall apart."
	xys, labels, cs := tradeoff(levels, e2eP50)
	err := c.addLevelSeries("e2e p50 (incl. TTFT)", xys, cs, 0, false)
	if err == nil {
		err = addLabels(c.Plot, xys, labels)
	}
	if dec, _, cs := tradeoff(levels, decodeP50); err == nil {
		err = c.addLevelSeries("decode p50 (excl. TTFT)", dec, cs, 3, true)
	}
	roomForLabels(c.Plot)
	return *c, err
}

// addSLO draws an SLO target as a dashed horizontal line.
func (c *Chart) addSLO(label string, target float64) error {
	f := plotter.NewFunction(func(float64) float64 { return target })
	f.Color, f.Width = palette[6], vg.Points(1.25)
	f.Dashes = []vg.Length{vg.Points(4), vg.Points(4)}
	c.Plot.Add(f)
	c.Plot.Legend.Add(label, f)
	c.Plot.Y.Max = max(c.Plot.Y.Max, 1.05*target)
	c.SLOs = append(c.SLOs, Ref{Label: label, Y: target})
	return nil
}

// fig formats an SLO target: no trailing zeros.
func fig(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

// CompareCharts overlays runs: per-stream decode tok/s p50 against the
// load, and the trade-off curves (e2e p50 per user against the
// aggregate). Run i is drawn in style i and named "A: NAME", "B: NAME", …
// in the legend, as compare names them. The charts hold the levels of one
// mode, on its axis (finish): the baseline's (its first level's, else the
// first run's that has one); as a level pairs only with a level of its own
// mode, a run's levels of other modes are left out, and a run with none
// of that mode is not drawn.
func CompareCharts(runs []Series) ([]Chart, error) {
	dec := newChart(CompareDecodeName, "Per-stream decode tok/s p50 vs concurrency", "", "decode tok/s p50 per stream", topRight)
	trade := newChart(CompareTradeoffName, "Throughput vs interactivity", "aggregate output tok/s (server)", "e2e tok/s p50 per user (incl. TTFT)", topRight)
	var all []report.LevelGroup
	mode := ""
	for i, r := range runs {
		levels := report.GroupByKey(r.Stats)
		if mode == "" && len(levels) > 0 {
			mode = levels[0].Key.Mode
		}
		levels = slices.DeleteFunc(levels, func(l report.LevelGroup) bool { return l.Key.Mode != mode })
		if len(levels) == 0 {
			continue
		}
		name := string(rune('A'+i%26)) + ": " + r.Name
		if err := dec.addSeries(name, series(levels, decodeP50), i, false); err != nil {
			return nil, err
		}
		xys, labels, cs := tradeoff(levels, e2eP50)
		if err := trade.addSeries(name, xys, i, false); err != nil {
			return nil, err
		}
		// The curves run side by side: label a level once, on the first
		// run that has it, or the labels pile up.
		for j, c := range cs {
			if slices.ContainsFunc(all, func(l report.LevelGroup) bool { return l.X() == c }) {
				labels[j] = ""
			}
		}
		if err := addLabels(trade.Plot, xys, labels); err != nil {
			return nil, err
		}
		all = append(all, levels...)
	}
	roomForLabels(trade.Plot)
	return []Chart{dec.finish(all), *trade}, nil
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

// newChart makes an empty chart (newPlot) named name.
func newChart(name, title, xLabel, yLabel string, legendLeft bool) *Chart {
	return &Chart{Name: name, Title: title, Plot: newPlot(title, xLabel, yLabel, legendLeft)}
}

// finish puts the load axis under a chart of figures against the levels'
// load (LevelKey.X: C, an open loop's rate) and starts the y axis at 0.
// The axis is labelled in the levels' mode's words (sweep.Words.Axis:
// "concurrency (requests in flight)", "offered rate (req/s)"), and the
// title's "vs concurrency" names the load as the label does before its
// brackets ("vs offered rate").
func (c *Chart) finish(levels []report.LevelGroup) Chart {
	var cs []float64
	for _, l := range levels {
		cs = append(cs, l.X())
	}
	slices.Sort(cs)
	concurrencyAxis(c.Plot, slices.Compact(cs))
	c.Plot.Y.Min, c.Plot.Y.Max = 0, 1.05*c.Plot.Y.Max
	axis := levelWords(levels).Axis
	load, _, _ := strings.Cut(axis, " (")
	c.Title = strings.Replace(c.Title, "vs concurrency", "vs "+load, 1)
	c.Plot.Title.Text, c.Plot.X.Label.Text = c.Title, axis
	return *c
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
	_, logScale := p.X.Scale.(plot.LogScale)
	var marks plot.ConstantTicks
	for _, c := range thinTicks(ticks, logScale) {
		marks = append(marks, plot.Tick{Value: c, Label: strconv.FormatFloat(c, 'g', -1, 64)})
	}
	p.X.Tick.Marker = marks
}

// minTickGap is the least distance between two labelled ticks, as a share
// of the axis: closer labels ("32", "33", "34", "36") run into each other.
const minTickGap = 0.06

// thinTicks keeps, from the sorted levels cs, those at least minTickGap of
// the axis (logarithmic or linear) from the previous kept one, starting
// from the lowest; the highest is always kept, in place of a kept one too
// close to it.
func thinTicks(cs []float64, logScale bool) []float64 {
	if len(cs) < 2 {
		return cs
	}
	pos := func(c float64) float64 {
		if logScale {
			return math.Log(c)
		}
		return c
	}
	span := pos(cs[len(cs)-1]) - pos(cs[0])
	if span <= 0 {
		return cs
	}
	kept := []float64{cs[0]}
	for _, c := range cs[1:] {
		if (pos(c)-pos(kept[len(kept)-1]))/span >= minTickGap {
			kept = append(kept, c)
		}
	}
	if last := cs[len(cs)-1]; kept[len(kept)-1] != last {
		if len(kept) > 1 && (pos(last)-pos(kept[len(kept)-1]))/span < minTickGap {
			kept = kept[:len(kept)-1]
		}
		kept = append(kept, last)
	}
	return kept
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

// tradeoff is the per-user figure perUser against aggregate output tok/s,
// one point per level, with "C=n" labels and each point's concurrency.
func tradeoff(levels []report.LevelGroup, perUser func(report.LevelStats) float64) (xys plotter.XYs, labels []string, cs []float64) {
	for _, l := range levels {
		x, y := meanOf(l.Runs, aggregate), meanOf(l.Runs, perUser)
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
func e2eP50(s report.LevelStats) float64    { return s.E2ETPSP50 }
func e2eP10(s report.LevelStats) float64    { return s.E2ETPSP10 }
func ttftP50(s report.LevelStats) float64   { return report.Ms(s.TTFTP50) }
func ttftP95(s report.LevelStats) float64   { return report.Ms(s.TTFTP95) }
func errorPct(s report.LevelStats) float64  { return 100 * report.ErrorRate(s) }
