package report

import (
	"cmp"
	"fmt"
	"io"
	"strings"

	"github.com/toksweep/toksweep/sweep"
)

// Tier is a named SLO (sweep --slo-tier): one row of the tier table.
type Tier struct {
	Name string
	SLO  SLO
}

// TierAnswer is a tier's capacity answer: the Recommendation of the
// sweep's levels under the tier's SLO, so that a tier is judged, level by
// level, exactly as the single SLO is (CheckSLO), and its answer follows
// the same rule (the highest level passing with every lower level passing).
type TierAnswer struct {
	Tier
	Rec Recommendation
}

// JudgeTiers judges stats against every tier, in the tiers' order.
func JudgeTiers(stats []LevelStats, tiers []Tier) []TierAnswer {
	out := make([]TierAnswer, 0, len(tiers))
	for _, t := range tiers {
		out = append(out, TierAnswer{Tier: t, Rec: Recommend(stats, t.SLO)})
	}
	return out
}

// TierJSON is one tier's row in summary.json ("tiers") and in the tier
// table of the console and report.html, which render from it. The
// figures are the answer level's (docs/metrics.md, SLO tiers), each the
// mean over the level's repeats; absent (null) when no level meets the
// tier.
type TierJSON struct {
	Name   string     `json:"name"`
	SLO    string     `json:"slo"`    // the bounds in words (SLO.String)
	Bounds *SLOConfig `json:"bounds"` // the bounds, as summary.json's config.slo records an SLO
	// Level is the answer's level name ("C=8", "rate=2/s"); empty when
	// no level meets the tier. Concurrency and Rate are its columns, as
	// in the recommendation.
	Level       string   `json:"level,omitempty"`
	Concurrency *int     `json:"concurrency"`
	Rate        *float64 `json:"rate,omitempty"`
	// Limit says what bounds the answer: "fails at C=16", "C=8 unjudged"
	// (it cannot bear a verdict), "above C=16" (every level passed).
	Limit        string   `json:"limit"`
	LimitReasons []string `json:"limit_reasons,omitempty"` // the first failing level's failed criteria
	DecodeTPSP50 *float64 `json:"decode_tps_p50"`
	DecodeTPSP10 *float64 `json:"decode_tps_p10"`
	TTFTP95Ms    *float64 `json:"ttft_p95_ms"`
	// AggregateOutputTPS is the answer level's aggregate output tok/s.
	AggregateOutputTPS *float64 `json:"aggregate_output_tps"`
}

// NewTiersJSON converts answers, taking the answer levels' figures from
// stats; nil without tiers (summary.json then has no "tiers").
func NewTiersJSON(answers []TierAnswer, stats []LevelStats) []TierJSON {
	var out []TierJSON
	for _, a := range answers {
		r := a.Rec
		j := TierJSON{Name: a.Name, SLO: a.SLO.String(), Bounds: NewSLOConfig(a.SLO), Limit: tierLimit(r, stats)}
		j.LimitReasons = r.FirstFailWhy
		if k := r.Recommended; !k.IsZero() {
			j.Level = k.Name()
			if k.Concurrency != 0 {
				c := k.Concurrency
				j.Concurrency = &c
			}
			j.Rate = openLoad(k)
			for _, g := range GroupByKey(stats) {
				if g.Key == k {
					m := meanFigures(g.Runs)
					j.DecodeTPSP50, j.DecodeTPSP10 = rounded(m.DecodeP50, tpsDecimals), rounded(m.DecodeP10, tpsDecimals)
					j.TTFTP95Ms, j.AggregateOutputTPS = rounded(m.TTFTP95Ms, msDecimals), rounded(m.Aggregate, tpsDecimals)
				}
			}
		}
		out = append(out, j)
	}
	return out
}

// tierLimit is TierJSON.Limit of r.
func tierLimit(r Recommendation, stats []LevelStats) string {
	switch {
	case !r.FirstFail.IsZero():
		return "fails at " + r.FirstFail.Name()
	case !r.Unjudged.IsZero():
		return r.Unjudged.Name() + " unjudged"
	}
	var top sweep.LevelKey
	for _, g := range GroupByKey(stats) {
		top = g.Key // GroupByKey is ascending
	}
	if top.IsZero() {
		return NoValue
	}
	return "above " + top.Name()
}

// TierTableTitle heads the tier table in the console and report.html.
const TierTableTitle = "SLO tiers: the highest level meeting each tier with every lower level passing, and what each user gets there"

// TierTable is the tier table's heads and cells, one row per tier, for
// the console (WriteTiers) and report.html; left marks the text columns.
func TierTable(tiers []TierJSON) (heads []string, left []bool, rows [][]string) {
	heads = []string{"tier", "SLO", "level", "decode p50", "decode p10", "TTFT p95 ms", "output tok/s", "limit"}
	left = []bool{true, true, true, false, false, false, false, true}
	cell := func(v *float64, decimals int) string {
		if v == nil {
			return NoValue
		}
		return Num(*v, decimals)
	}
	for _, t := range tiers {
		rows = append(rows, []string{t.Name, t.SLO, cmp.Or(t.Level, "none"),
			cell(t.DecodeTPSP50, 1), cell(t.DecodeTPSP10, 1), cell(t.TTFTP95Ms, 0), cell(t.AggregateOutputTPS, 0), t.Limit})
	}
	return heads, left, rows
}

// WriteTiers writes the tier table under its title; nothing without tiers.
func WriteTiers(w io.Writer, tiers []TierJSON) error {
	if len(tiers) == 0 {
		return nil
	}
	heads, left, rows := TierTable(tiers)
	t := table{rows: rows}
	for i, h := range heads {
		t.cols = append(t.cols, col{head: h, left: left[i]})
	}
	if _, err := fmt.Fprintf(w, "\n%s:\n", TierTableTitle); err != nil {
		return err
	}
	if err := t.write(w); err != nil {
		return err
	}
	for _, tj := range tiers {
		if len(tj.LimitReasons) > 0 {
			if _, err := fmt.Fprintf(w, "%s %s: %s.\n", tj.Name, tj.Limit, strings.Join(tj.LimitReasons, "; ")); err != nil {
				return err
			}
		}
	}
	return nil
}

// TierConfig is a tier as summary.json's config records it ("slo_tiers"),
// so that a merge judges the pooled levels against the same tiers.
type TierConfig struct {
	Name string    `json:"name"`
	SLO  SLOConfig `json:"slo"`
}

// NewTierConfigs records tiers; nil without any.
func NewTierConfigs(tiers []Tier) []TierConfig {
	var out []TierConfig
	for _, t := range tiers {
		if c := NewSLOConfig(t.SLO); c != nil {
			out = append(out, TierConfig{Name: t.Name, SLO: *c})
		}
	}
	return out
}

// Tiers is the tiers the run was judged by; nil when it had none.
func (c *RunConfig) Tiers() []Tier {
	if c == nil {
		return nil
	}
	var out []Tier
	for _, t := range c.SLOTiers {
		slo, _ := (&RunConfig{SLO: &t.SLO}).Objective()
		out = append(out, Tier{Name: t.Name, SLO: slo})
	}
	return out
}
