package report

import (
	"math"
	"slices"
	"strconv"

	"github.com/toksweep/toksweep/sweep"
)

// spreadTitle heads the repeat table: the same level run several times.
const spreadTitle = "Repeat spread (each level run several times: min–max over the runs, and (max−min)/median)"

// Spread is the spread of one figure over the repeats of a level.
type Spread struct {
	Min, Median, Max float64
}

// Relative is (Max − Min) / Median, NaN when undefined.
func (s Spread) Relative() float64 {
	if s.Median == 0 || math.IsNaN(s.Median) {
		return math.NaN()
	}
	return (s.Max - s.Min) / s.Median
}

// spreadOf computes the spread of the non-NaN values; NaN figures without
// any value.
func spreadOf(values []float64) Spread {
	var xs []float64
	for _, v := range values {
		if !math.IsNaN(v) {
			xs = append(xs, v)
		}
	}
	if len(xs) == 0 {
		return Spread{math.NaN(), math.NaN(), math.NaN()}
	}
	slices.Sort(xs)
	return Spread{Min: xs[0], Median: Percentile(xs, 50), Max: xs[len(xs)-1]}
}

// spreadTable is the repeat table, nil when no level was repeated.
func spreadTable(stats []LevelStats) *table {
	groups := GroupByKey(stats)
	ks := make([]sweep.LevelKey, len(groups))
	for i, g := range groups {
		ks[i] = g.Key
	}
	head, label := sweep.LevelColumn(ks) // "C" over 4, "level" over rate=8/s
	t := &table{cols: []col{
		{head: head}, {head: "runs"},
		{head: "decode p50 tok/s"}, {head: "spread"},
		{head: "TTFT p50 ms"}, {head: "spread"},
		{head: "output tok/s"}, {head: "spread"},
	}}
	for _, g := range groups {
		if len(g.Runs) < 2 {
			continue
		}
		var decode, ttft, agg []float64
		for _, s := range g.Runs {
			decode = append(decode, s.DecodeTPSP50)
			ttft = append(ttft, Ms(s.TTFTP50))
			agg = append(agg, s.AggregateOutputTPS)
		}
		row := []string{label(g.Key), strconv.Itoa(len(g.Runs))}
		for _, sp := range []Spread{spreadOf(decode), spreadOf(ttft), spreadOf(agg)} {
			row = append(row, Num(sp.Min, 1)+"–"+Num(sp.Max, 1), percent(sp.Relative()))
		}
		t.rows = append(t.rows, row)
	}
	if len(t.rows) == 0 {
		return nil
	}
	return t
}

// percent formats a fraction as a percentage, NoValue when undefined.
func percent(v float64) string {
	if !defined(v) {
		return NoValue
	}
	return Num(100*v, 1) + "%"
}
