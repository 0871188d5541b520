package chart

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/toksweep/toksweep/internal/atomicfile"
	"github.com/toksweep/toksweep/sweep"
)

// Size of every chart: 8 × 5 inches, 768 × 480 pixels as PNG.
const (
	Width  = 8 * vg.Inch
	Height = 5 * vg.Inch
)

// Formats are the file formats a chart renders to, as file extensions, in
// the order WriteFiles writes them: the default of --charts.
var Formats = []string{"png", "svg"}

// NoFiles is the --charts value that writes no chart file.
const NoFiles = "none"

// ParseFormats reads a --charts value: "png,svg", "png", "svg" (formats
// of Formats, comma-separated), or "none" for no chart file, which gives
// an empty list. PNG is what to attach or paste; SVG is small and fast to
// write (rasterising PNG costs ten times as long).
func ParseFormats(s string) ([]string, error) {
	if s == NoFiles {
		return []string{}, nil
	}
	var fs []string
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		if !slices.Contains(Formats, f) || slices.Contains(fs, f) {
			return nil, fmt.Errorf("%q: want %s, comma-separated, or %s", s, strings.Join(Formats, " or "), NoFiles)
		}
		fs = append(fs, f)
	}
	return fs, nil
}

// Chart is one figure, ready to render, with what it draws as plain data
// (for captions and tests).
type Chart struct {
	Name  string // file stem, e.g. "aggregate_tps"
	Title string // what the chart shows
	Note  string // how to read it, one sentence for the caption
	Plot  *plot.Plot

	Series []string // legend names of the data series, in drawing order
	SLOs   []Ref    // the SLO targets drawn as horizontal lines
	Marks  []Mark   // the levels marked (recommended, knee, client-limited)

	at []levelPoint // the first series' points with their levels, for the marks
}

// levelPoint is a drawn point and the level it shows.
type levelPoint struct {
	X float64 // the level's key: C, or an open loop's offered rate
	plotter.XY
}

// Ref is a horizontal reference line: an SLO criterion's target on the
// chart of the figure it checks.
type Ref struct {
	Label string
	Y     float64
}

// Mark is a level marked on a chart: What is MarkRecommended, MarkKnee or
// a level flag (MarkClientLimited).
type Mark struct {
	Key  sweep.LevelKey // the level marked: a line at its Key.X()
	What string
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

// WriteFiles writes every chart in each of formats (of Formats) into dir
// (which must exist) as NAME.png and NAME.svg, and returns the paths
// written; formats not asked for are not written, and files of theirs
// already in dir are left as they are. Each
// file is replaced atomically (atomicfile.Write): a failed write, a full disk
// say, leaves the file as it was and no partial file behind.
func WriteFiles(dir string, charts []Chart, formats []string) ([]string, error) {
	var paths []string
	for _, c := range charts {
		for _, f := range formats {
			b, err := c.Bytes(f)
			if err != nil {
				return paths, err
			}
			path, err := WriteFile(dir, c, f, b)
			if err != nil {
				return paths, err
			}
			paths = append(paths, path)
		}
	}
	return paths, nil
}

// WriteFile writes b, c rendered in format (Bytes), into dir as
// NAME.format, replaced atomically as WriteFiles does, for a caller that
// has the rendering already (report.html embeds the same SVG); it returns
// the path.
func WriteFile(dir string, c Chart, format string, b []byte) (string, error) {
	path := filepath.Join(dir, c.Name+"."+format)
	if err := atomicfile.WriteBytes(path, b); err != nil {
		return path, fmt.Errorf("writing %s: %w", path, unwrapPath(err))
	}
	return path, nil
}

// unwrapPath drops the temporary file's name an *fs.PathError carries.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
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
	p.Y.Tick.Marker = plainTicks{}
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 220}
	grid.Horizontal.Color = color.Gray{Y: 220}
	p.Add(grid)
	return p
}

// plainTicks are gonum's default ticks labelled without trailing zeros
// ("750", not "750.00").
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i, t := range ticks {
		if t.Label != "" {
			ticks[i].Label = strconv.FormatFloat(t.Value, 'g', 6, 64)
		}
	}
	return ticks
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

// glyphs tell series apart without colour.
var glyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{},
	draw.PyramidGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{},
}

// addSeries draws xys as a line with points in style i and names it in
// the legend, unless name is empty. An empty series is skipped.
// On a chart against concurrency, the x of a point is its level.
func (c *Chart) addSeries(name string, xys plotter.XYs, i int, dashed bool) error {
	cs := make([]float64, len(xys))
	for j, xy := range xys {
		cs[j] = xy.X
	}
	return c.addLevelSeries(name, xys, cs, i, dashed)
}

// addLevelSeries is addSeries for points whose levels are cs.
func (c *Chart) addLevelSeries(name string, xys plotter.XYs, cs []float64, i int, dashed bool) error {
	if len(xys) == 0 {
		return nil
	}
	if len(c.Series) == 0 { // the first series carries the ring marks
		for j, xy := range xys {
			c.at = append(c.at, levelPoint{X: cs[j], XY: xy})
		}
	}
	if name != "" {
		c.Series = append(c.Series, name)
	}
	return addSeries(c.Plot, name, xys, i, dashed)
}

func addSeries(p *plot.Plot, name string, xys plotter.XYs, i int, dashed bool) error {
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
