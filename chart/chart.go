package chart

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Size of every chart: 8 × 5 inches, 768 × 480 pixels as PNG.
const (
	Width  = 8 * vg.Inch
	Height = 5 * vg.Inch
)

// Formats are the file formats WriteFiles writes, as file extensions.
var Formats = []string{"png", "svg"}

// Chart is one figure, ready to render.
type Chart struct {
	Name  string // file stem, e.g. "aggregate_tps"
	Title string // what the chart shows, for captions
	Plot  *plot.Plot
}

// Render writes the chart to w in format "png" or "svg".
func (c Chart) Render(w io.Writer, format string) error {
	wt, err := c.Plot.WriterTo(Width, Height, format)
	if err != nil {
		return fmt.Errorf("chart %s: %w", c.Name, err)
	}
	_, err = wt.WriteTo(w)
	return err
}

// Bytes renders the chart in format into memory.
func (c Chart) Bytes(format string) ([]byte, error) {
	var b bytes.Buffer
	err := c.Render(&b, format)
	return b.Bytes(), err
}

// WriteFiles writes every chart in every format of Formats into dir (which
// must exist) as NAME.png and NAME.svg, and returns the paths written.
func WriteFiles(dir string, charts []Chart) ([]string, error) {
	var paths []string
	for _, c := range charts {
		for _, f := range Formats {
			b, err := c.Bytes(f)
			if err != nil {
				return paths, err
			}
			path := filepath.Join(dir, c.Name+"."+f)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				return paths, err
			}
			paths = append(paths, path)
		}
	}
	return paths, nil
}

// sans is the font of every text: Liberation Sans, shipped with gonum.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// Where a legend goes: in the top corner that the data leave free.
const (
	topRight = false
	topLeft  = true
)

// newPlot makes an empty plot with a title, axis labels, a grid and the
// legend in a top corner.
func newPlot(title, xLabel, yLabel string, legendLeft bool) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, xLabel, yLabel
	styles := []*text.Style{
		&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle,
		&p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle,
	}
	for _, s := range styles {
		s.Font.Typeface, s.Font.Variant = sans.Typeface, sans.Variant
	}
	p.Title.TextStyle.Font.Size = vg.Points(14)
	p.Title.Padding = vg.Points(8)
	p.Legend.Top, p.Legend.Left = true, legendLeft
	// Keep the glyphs of the legend off the plot's edges.
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(-8), vg.Points(-4)
	if legendLeft {
		p.Legend.XOffs = vg.Points(12)
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 220}
	grid.Horizontal.Color = color.Gray{Y: 220}
	p.Add(grid)
	return p
}

// palette is a colour-blind-safe set (Okabe–Ito), one per series.
var palette = []color.Color{
	color.RGBA{0, 114, 178, 255},   // blue
	color.RGBA{213, 94, 0, 255},    // vermilion
	color.RGBA{0, 158, 115, 255},   // bluish green
	color.RGBA{204, 121, 167, 255}, // reddish purple
	color.RGBA{230, 159, 0, 255},   // orange
	color.RGBA{86, 180, 233, 255},  // sky blue
	color.RGBA{0, 0, 0, 255},       // black
}

// flagColor rings the points of flagged levels: black, apart from the
// series' colours.
var flagColor = palette[6]

// glyphs tell series apart without colour.
var glyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{},
	draw.PyramidGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{},
}

// addSeries draws xys as a line with points in style i and names it in
// the legend, unless name is empty. An empty series is skipped.
func addSeries(p *plot.Plot, name string, xys plotter.XYs, i int, dashed bool) error {
	if len(xys) == 0 {
		return nil
	}
	line, points, err := plotter.NewLinePoints(xys)
	if err != nil {
		return err
	}
	c := palette[i%len(palette)]
	line.Color, line.Width = c, vg.Points(1.75)
	if dashed {
		line.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	}
	points.Color, points.Shape, points.Radius = c, glyphs[i%len(glyphs)], vg.Points(3)
	p.Add(line, points)
	if name != "" {
		p.Legend.Add(name, line, points)
	}
	return nil
}
