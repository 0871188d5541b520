package chart

import (
	"math"
	"unicode/utf8"

	"gonum.org/v1/plot/plotter"
)

// The label box sparseLabels assumes: addLabels' 9-point text drawn 5
// points right of its point, about half an em per character, and the plot
// area a chart of Width × Height leaves inside its axes (in points).
const (
	labelCharPt, labelHeightPt = 4.7, 11.0
	plotWidthPt, plotHeightPt  = 500.0, 285.0
)

// sparseLabels returns labels with those blanked that would be drawn over
// one already kept, on axes from 0 to xMax and yMax (roomForLabels'
// axes). It keeps them in the order of keep (indices into labels; the
// ones that matter first), so that a crowded corner shows the label of
// the point the reader needs, and the others' points stay drawn, unnamed.
func sparseLabels(xys plotter.XYs, labels []string, keep []int, xMax, yMax float64) []string {
	out := make([]string, len(labels))
	if xMax <= 0 || yMax <= 0 {
		return out
	}
	var kept []int
	for _, i := range keep {
		clear := true
		for _, j := range kept {
			dx := math.Abs(xys[i].X-xys[j].X) / xMax * plotWidthPt
			dy := math.Abs(xys[i].Y-xys[j].Y) / yMax * plotHeightPt
			w := labelCharPt * float64(utf8.RuneCountInString(labels[j]))
			if xys[i].X < xys[j].X {
				w = labelCharPt * float64(utf8.RuneCountInString(labels[i]))
			}
			if dx < w && dy < labelHeightPt {
				clear = false
				break
			}
		}
		if clear {
			out[i] = labels[i]
			kept = append(kept, i)
		}
	}
	return out
}
