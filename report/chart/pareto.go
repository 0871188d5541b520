package chart

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ParetoName is the file stem of plan's Pareto chart over several runs.
const ParetoName = "pareto"

// ParetoPoint is one level of one configuration on the Pareto chart:
// X tokens/s per user, Y tokens/s per GPU (plan.Point's figures).
type ParetoPoint struct {
	Label  string // e.g. "tp2 C=8"
	X, Y   float64
	Front  bool // on the Pareto front
	Chosen bool // the level the cheapest configuration rests on
}

// Pareto draws every point in grey, the front as a line through its
// points in ascending tokens/s per user, and the chosen level as a
// larger ring, as vLLM's `vllm bench sweep plot_pareto` draws its
// tokens/s/user against tokens/s/GPU. A point whose figures are not
// finite is not drawn. A label that would cover another is left off
// (sparseLabels), the chosen and front levels' first. The chart's Series are the drawn series' names;
// Front is the front's points in drawing order.
func Pareto(points []ParetoPoint) (Chart, []ParetoPoint, error) {
	c := newChart(ParetoName, "Pareto front: tokens/s per user vs tokens/s per GPU (one point per level)", "output tok/s per user", "output tok/s per GPU", topRight)
	c.Note = "Each point is a level of one run (configuration); up and right is better. The line joins the points no other point beats on both axes; the ring is the level the cheapest configuration rests on."
	var all, front plotter.XYs
	var labels []string
	var fronts []ParetoPoint
	var chosen, first, then []int // label order: the chosen level, the front, the rest
	for _, p := range points {
		if !finite(p.X) || !finite(p.Y) {
			continue
		}
		switch {
		case p.Chosen:
			chosen = append(chosen, len(all))
		case p.Front:
			first = append(first, len(all))
		default:
			then = append(then, len(all))
		}
		all, labels = append(all, plotter.XY{X: p.X, Y: p.Y}), append(labels, p.Label)
		if p.Front {
			fronts = append(fronts, p)
		}
	}
	if len(all) == 0 {
		return Chart{}, nil, fmt.Errorf("chart %s: no point to draw", ParetoName)
	}
	slices.SortStableFunc(fronts, func(a, b ParetoPoint) int { return cmp.Or(cmp.Compare(a.X, b.X), cmp.Compare(b.Y, a.Y)) })
	for _, p := range fronts {
		front = append(front, plotter.XY{X: p.X, Y: p.Y})
	}
	sc, err := plotter.NewScatter(all)
	if err != nil {
		return Chart{}, nil, err
	}
	sc.Color, sc.Shape, sc.Radius = color.Gray{Y: 128}, draw.CircleGlyph{}, vg.Points(3)
	c.Plot.Add(sc)
	c.Plot.Legend.Add("all levels", sc)
	c.Series = append(c.Series, "all levels")
	if len(front) > 0 {
		if err := addSeries(c.Plot, "Pareto front", front, 0, false); err != nil {
			return Chart{}, nil, err
		}
		c.Series = append(c.Series, "Pareto front")
	}
	for _, p := range points {
		if p.Chosen && finite(p.X) && finite(p.Y) {
			ring, err := plotter.NewScatter(plotter.XYs{{X: p.X, Y: p.Y}})
			if err != nil {
				return Chart{}, nil, err
			}
			ring.Color, ring.Shape, ring.Radius = palette[1], draw.RingGlyph{}, vg.Points(7)
			c.Plot.Add(ring)
			c.Plot.Legend.Add("chosen: "+p.Label, ring)
			c.Series = append(c.Series, "chosen: "+p.Label)
		}
	}
	roomForLabels(c.Plot)
	labels = sparseLabels(all, labels, slices.Concat(chosen, first, then), c.Plot.X.Max, c.Plot.Y.Max)
	if err := addLabels(c.Plot, all, labels); err != nil {
		return Chart{}, nil, err
	}
	return *c, fronts, nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
