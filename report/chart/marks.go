package chart

import (
	"image/color"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/toksweep/toksweep/report"
)

// What a Mark marks.
const (
	MarkRecommended   = "recommended"    // report.Recommendation.Recommended
	MarkKnee          = "knee"           // report.Recommendation.Knee
	MarkClientLimited = "client-limited" // a level flag
	MarkNoVerdict     = "no verdict"     // a level report.Untrusted leaves out of knee and recommendation
)

// levelFlags are the per-level conditions drawn as a ring around a level's
// points, each in its colour. Unstable levels join this list, one line,
// once report flags them.
var levelFlags = []struct {
	what  string
	on    func(report.LevelStats) bool
	color color.Color
}{
	{MarkClientLimited, func(s report.LevelStats) bool { return s.ClientLimited }, color.Black},
	{MarkNoVerdict, func(s report.LevelStats) bool { return report.Untrusted(s) != "" }, color.RGBA{R: 200, A: 255}},
}

// markLevels marks the recommended level and the knee (a vertical line on
// a chart against concurrency, a note beside the point on the trade-off)
// and rings the points of flagged levels.
func markLevels(c *Chart, levels []report.LevelGroup, rec report.Recommendation) error {
	rows := len(c.Series) + len(c.SLOs) // the legend's
	defer func() { legendRoom(c, rows) }()
	for _, m := range []Mark{{Key: rec.Recommended, What: MarkRecommended}, {Key: rec.Knee, What: MarkKnee}} {
		if m.Key.IsZero() {
			continue
		}
		c.Marks = append(c.Marks, m)
		if m.What == MarkKnee && m.Key == rec.Recommended {
			m.What = MarkRecommended + " and " + MarkKnee // one line, one note
		} else if c.Name != TradeoffName {
			rows++
		}
		if m.What == MarkRecommended && m.Key == rec.Knee {
			continue // drawn with the knee
		}
		if err := c.markLevel(m); err != nil {
			return err
		}
	}
	for _, f := range levelFlags {
		var ring plotter.XYs
		for _, l := range levels {
			if !slices.ContainsFunc(l.Runs, f.on) {
				continue
			}
			c.Marks = append(c.Marks, Mark{Key: l.Key, What: f.what})
			for _, p := range c.at {
				if p.X == l.X() {
					ring = append(ring, p.XY)
				}
			}
		}
		if len(ring) == 0 {
			continue
		}
		s, err := plotter.NewScatter(ring)
		if err != nil {
			return err
		}
		s.Shape, s.Color, s.Radius = draw.RingGlyph{}, f.color, vg.Points(6.5)
		c.Plot.Add(s)
		c.Plot.Legend.Add(f.what, s)
		rows++
	}
	return nil
}

// legendRoom raises the top of the y axis so that a legend of rows lines
// sits above the data and the marks, not over them.
func legendRoom(c *Chart, rows int) {
	const perRow = 0.05 // of the plot's height, at Height and the legend's font
	if frac := 0.03 + perRow*float64(rows); rows > 0 && frac < 0.6 {
		c.Plot.Y.Max = c.Plot.Y.Min + (c.Plot.Y.Max-c.Plot.Y.Min)/(1-frac)
	}
}

// markLevel draws m: a labelled vertical line at C, or, on the trade-off
// chart, whose x axis is not C, a note under the level's point.
func (c *Chart) markLevel(m Mark) error {
	label, x := m.What+" "+m.Key.Name(), m.Key.X()
	if c.Name == TradeoffName {
		i := slices.IndexFunc(c.at, func(p levelPoint) bool { return p.X == x })
		if i < 0 {
			return nil
		}
		l, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{c.at[i].XY}, Labels: []string{m.What}})
		if err != nil {
			return err
		}
		l.TextStyle[0].Font.Typeface, l.TextStyle[0].Font.Variant = sans.Typeface, sans.Variant
		l.TextStyle[0].Font.Size, l.TextStyle[0].Color = vg.Points(9), markColor(m.What)
		// Left of the point, so that the rightmost level's note stays in:
		// the knee's below it, the recommended level's above, so that the
		// two notes of neighbouring points never overlap.
		l.TextStyle[0].XAlign, l.Offset = draw.XRight, markOffset(m.What)
		c.Plot.Add(l)
		return nil
	}
	line, err := plotter.NewLine(plotter.XYs{{X: x, Y: c.Plot.Y.Min}, {X: x, Y: c.Plot.Y.Max}})
	if err != nil {
		return err
	}
	line.Color, line.Width = markColor(m.What), vg.Points(1.25)
	line.Dashes = []vg.Length{vg.Points(2), vg.Points(3)}
	c.Plot.Add(line)
	c.Plot.Legend.Add(label, line)
	return nil
}

// markOffset places a mark's note on the trade-off chart, from its point:
// the knee's below-left, any other (recommended) above-left.
func markOffset(what string) vg.Point {
	if what == MarkKnee {
		return vg.Point{X: vg.Points(-6), Y: vg.Points(-14)}
	}
	return vg.Point{X: vg.Points(-6), Y: vg.Points(6)}
}

// markColor is green for the recommended level, grey for the knee alone.
func markColor(what string) color.Color {
	if what != MarkKnee {
		return palette[2]
	}
	return color.Gray{Y: 110}
}
