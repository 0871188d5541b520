package report

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// Extra percentiles (sweep --percentiles 50,90,95,99,99.9): the registry
// (Columns) is static, so the requested percentiles of the figures that
// take them are extra columns made at run time, appended after the
// registry's in levels.csv and summary.json. Their values live in
// LevelStats.Extra, keyed by column name.

// percentileFigure is a figure that takes percentiles: one value per
// successful measured request (NaN: none), or, for ITL, the pooled
// per-token histogram.
type percentileFigure struct {
	prefix, suffix, unit, def string
	ms                        bool                     // nanosecond values shown in ms
	value                     func(r *request) float64 // nil: the ITL histogram
}

var percentileFigures = []percentileFigure{
	{"ttft", "_ms", "ms", "TTFT", true, func(r *request) float64 {
		if r.chunks == 0 {
			return math.NaN()
		}
		return float64(r.ttft)
	}},
	{"e2e_latency", "_ms", "ms", "end-to-end latency (End − Origin)", true, func(r *request) float64 {
		if r.end > r.origin() {
			return float64(r.end - r.origin())
		}
		return math.NaN()
	}},
	{"tpot", "_ms", "ms", "TPOT, (End − first token) / (output tokens − 1)", true, (*request).tpot},
	{"itl", "_ms", "ms", "ITL, token-weighted", true, nil},
	{"decode_tps", "", "tok/s", "decode tok/s per stream", false, func(r *request) float64 { return r.decode }},
}

// percentile is f's p-th percentile over g (nearest rank; NaN without a
// sample). sorted holds f's sorted per-request values.
func (f percentileFigure) percentile(g *gathered, sorted []float64, p float64) float64 {
	if f.value == nil {
		return g.itl.Percentile(p)
	}
	return Percentile(sorted, p)
}

// values are f's sorted per-request values over g's successful requests.
func (f percentileFigure) values(g *gathered) []float64 {
	if f.value == nil {
		return nil
	}
	var vs []float64
	for _, r := range g.ok {
		if v := f.value(r); !math.IsNaN(v) {
			vs = append(vs, v)
		}
	}
	slices.Sort(vs)
	return vs
}

// PercentileName is the column-name part of percentile p: p50, p99, p999
// for 99.9.
func PercentileName(p float64) string {
	return "p" + strings.ReplaceAll(strconv.FormatFloat(p, 'f', -1, 64), ".", "")
}

// ExtraPercentileColumns are the columns of percentiles ps of each figure
// that takes percentiles, leaving out those the registry already has
// (ttft_p95_ms, …). Nil for no ps: the default columns stay as they are.
func ExtraPercentileColumns(ps []float64) []Column {
	var cols []Column
	for _, f := range percentileFigures {
		for _, p := range ps {
			name := f.prefix + "_" + PercentileName(p) + f.suffix
			if slices.ContainsFunc(Columns, func(c Column) bool { return c.Name == name }) ||
				slices.ContainsFunc(cols, func(c Column) bool { return c.Name == name }) {
				continue
			}
			c := Column{Name: name, Unit: f.unit, Def: "--percentiles: p" + strconv.FormatFloat(p, 'f', -1, 64) + " of " + f.def,
				Out: InFiles, Decimals: msDecimals, PeopleDecimals: 1,
				Value: func(s *LevelStats) Value {
					v, ok := s.Extra[name]
					if !ok {
						v = math.NaN()
					}
					return number(v)
				}}
			if !f.ms {
				c.Decimals = tpsDecimals
			}
			cols = append(cols, c)
		}
	}
	return cols
}

// percentiles fills s.Extra with the values of ExtraPercentileColumns(ps)
// over g (nearest rank, the ITL's from its histogram; NaN without a
// sample); it leaves Extra nil without ps.
func (s *LevelStats) percentiles(g *gathered, ps []float64) {
	if len(ps) == 0 {
		return
	}
	cols := ExtraPercentileColumns(ps)
	s.Extra = make(map[string]float64, len(cols))
	for _, f := range percentileFigures {
		vs := f.values(g)
		for _, p := range ps {
			name := f.prefix + "_" + PercentileName(p) + f.suffix
			if !slices.ContainsFunc(cols, func(c Column) bool { return c.Name == name }) {
				continue
			}
			v := f.percentile(g, vs, p)
			if f.ms {
				v /= 1e6
			}
			s.Extra[name] = v
		}
	}
}
