package report

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/sweep"
)

// Extra percentiles (sweep --percentiles 50,90,95,99,99.9): the registry
// (Columns) is static, so the requested percentiles of the figures that
// take them are extra columns made at run time, appended after the
// registry's in levels.csv and summary.json. Their values live in
// LevelStats.Extra, keyed by column name.

// percentileFigure is a figure that takes percentiles: its per-request
// values over a level's successful measured requests.
type percentileFigure struct {
	prefix, suffix, unit, def string
	ms                        bool // nanosecond values shown in ms
	values                    func(ok []client.Record) []WeightedValue
}

var percentileFigures = []percentileFigure{
	{"ttft", "_ms", "ms", "TTFT", true, each(func(r *client.Record) float64 {
		if len(r.ChunkAt) == 0 {
			return math.NaN()
		}
		return float64(RequestTTFT(r))
	})},
	{"e2e_latency", "_ms", "ms", "end-to-end latency (End − Origin)", true, each(func(r *client.Record) float64 {
		if r.End > r.Origin() {
			return float64(r.End - r.Origin())
		}
		return math.NaN()
	})},
	{"tpot", "_ms", "ms", "TPOT, (End − first token) / (output tokens − 1)", true, each(func(r *client.Record) float64 {
		if u := r.OutputTokens(); u > 1 && len(r.ChunkAt) > 0 && r.End >= r.FirstToken {
			return float64(r.End-r.FirstToken) / float64(u-1)
		}
		return math.NaN()
	})},
	{"itl", "_ms", "ms", "ITL, token-weighted", true, itlValues},
	{"decode_tps", "", "tok/s", "decode tok/s per stream", false, each(RequestDecodeTPS)},
}

// each makes per-request values of f, skipping NaN, all of weight 1.
func each(f func(*client.Record) float64) func([]client.Record) []WeightedValue {
	return func(ok []client.Record) []WeightedValue {
		var vs []WeightedValue
		for i := range ok {
			if v := f(&ok[i]); !math.IsNaN(v) {
				vs = append(vs, WeightedValue{Value: v, Weight: 1})
			}
		}
		return vs
	}
}

// itlValues are the per-token gaps, weighted as Summarize weighs them.
func itlValues(ok []client.Record) []WeightedValue {
	var vs []WeightedValue
	for i := range ok {
		r := &ok[i]
		w := tokenWeight(r)
		if w <= 0 {
			continue
		}
		for j := 1; j < len(r.ChunkAt); j++ {
			vs = append(vs, WeightedValue{Value: float64(r.ChunkAt[j]-r.ChunkAt[j-1]) / w, Weight: w})
		}
	}
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

// AddPercentiles fills s.Extra with the values of ExtraPercentileColumns(ps)
// for level l (nearest rank, weighted for ITL; NaN without a sample).
func AddPercentiles(s *LevelStats, l sweep.Level, ps []float64) {
	if len(ps) == 0 {
		return
	}
	var ok []client.Record
	for _, r := range l.Records {
		if !r.Warmup && r.OK() {
			ok = append(ok, r)
		}
	}
	cols := ExtraPercentileColumns(ps)
	s.Extra = make(map[string]float64, len(cols))
	for _, f := range percentileFigures {
		vs := f.values(ok)
		slices.SortFunc(vs, func(a, b WeightedValue) int { return cmp.Compare(a.Value, b.Value) })
		for _, p := range ps {
			name := f.prefix + "_" + PercentileName(p) + f.suffix
			if !slices.ContainsFunc(cols, func(c Column) bool { return c.Name == name }) {
				continue
			}
			v := WeightedPercentile(vs, p)
			if f.ms {
				v /= 1e6
			}
			s.Extra[name] = v
		}
	}
}
