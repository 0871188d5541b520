package chart

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestParetoChart: every finite point is drawn and labelled, the front is
// drawn in ascending tok/s per user, the chosen level is named in the
// legend, and a point with a non-finite figure is left out.
func TestParetoChart(t *testing.T) {
	t.Parallel()
	points := []ParetoPoint{
		{Label: "tp2 C=16", X: 9.375, Y: 75, Front: true},
		{Label: "tp2 C=8", X: 17.5, Y: 70, Chosen: true},
		{Label: "tp4 C=8", X: 25, Y: 50, Front: true},
		{Label: "tp4 C=16", X: 18.75, Y: 75, Front: true},
		{Label: "broken", X: math.Inf(1), Y: 3, Front: true},
	}
	c, front, err := Pareto(points)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range front {
		got = append(got, p.Label)
	}
	if want := []string{"tp2 C=16", "tp4 C=16", "tp4 C=8"}; !slices.Equal(got, want) {
		t.Errorf("front %v, want %v", got, want)
	}
	if want := []string{"all levels", "Pareto front", "chosen: tp2 C=8"}; !slices.Equal(c.Series, want) {
		t.Errorf("series %v, want %v", c.Series, want)
	}
	b, err := c.Bytes("svg")
	if err != nil {
		t.Fatal(err)
	}
	svg := string(b)
	for _, want := range []string{"tp2 C=16", "tp4 C=8", "output tok/s per user", "output tok/s per GPU", "Pareto front"} {
		if !strings.Contains(svg, want) {
			t.Errorf("svg lacks %q", want)
		}
	}
	if strings.Contains(svg, "broken") || strings.Contains(svg, "NaN") || strings.Contains(svg, "Inf") {
		t.Error("svg draws the non-finite point")
	}
	if _, _, err := Pareto([]ParetoPoint{{Label: "x", X: math.NaN(), Y: 1}}); err == nil {
		t.Error("a chart with no finite point drawn")
	}
}

// A label that would be drawn over another is left off, the chosen
// level's and the front's kept first; the points stay drawn, and labels
// with room keep theirs.
func TestParetoLabelsDoNotOverlap(t *testing.T) {
	t.Parallel()
	points := []ParetoPoint{
		{Label: "tp1 C=32", X: 30, Y: 980},                // off the front, drawn first
		{Label: "tp2 C=64", X: 30.2, Y: 975, Front: true}, // on it: wins the spot
		{Label: "tp1 C=16", X: 50, Y: 700, Front: true},
		{Label: "tp2 C=16", X: 51, Y: 705, Chosen: true}, // chosen: wins over the front
		{Label: "tp4 C=4", X: 160, Y: 170, Front: true},
		{Label: "tp4 C=1", X: 190, Y: 45},
	}
	c, _, err := Pareto(points)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Bytes("svg")
	if err != nil {
		t.Fatal(err)
	}
	svg := string(b)
	for label, want := range map[string]bool{"tp2 C=64": true, "tp1 C=32": false, "tp2 C=16": true, "tp1 C=16": false, "tp4 C=4": true, "tp4 C=1": true} {
		if got := strings.Contains(svg, ">"+label+"<"); got != want {
			t.Errorf("label %q drawn %v, want %v", label, got, want)
		}
	}
	if strings.Count(svg, "<path") < len(points) {
		t.Error("svg draws fewer marks than points")
	}
}
