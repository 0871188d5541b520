package plan

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// TierPlan is one SLO tier's plan (sweep --slo-tier): the fleet for the
// options' demand at the tier's answer, the highest level meeting the tier
// with every lower level passing, judged as the sweep judged it
// (report.JudgeTiers).
type TierPlan struct {
	Name string
	SLO  string // the tier's bounds in words
	// Limit says what bounds the tier's answer, as the tier table says it:
	// "fails at C=16", "C=8 unjudged", "above C=16".
	Limit string
	// Plan is the plan at the tier's answer level (basis "slo"); nil when
	// no level met the tier, or its level cannot answer (Err says which).
	Plan *Plan
	Err  string
	// Bound is set when every level run met the tier: its limit is above
	// them, so its counts and costs are upper bounds and its tokens a
	// lower one, as a plan of basis "bound" (Bounds).
	Bound bool
}

// TierPlans plans at each tier's answer among stats (the figures of
// levels, as a run's Stats and Levels), in the tiers' order; nil without
// tiers. Make sets them in Plan.Tiers for the tiers the run recorded.
func TierPlans(path string, stats []report.LevelStats, levels []sweep.Level, tiers []report.Tier, o Options) []TierPlan {
	if len(tiers) == 0 {
		return nil
	}
	answers := report.JudgeTiers(stats, tiers)
	rows := report.NewTiersJSON(answers, stats)
	gs := groups(stats, levels)
	out := make([]TierPlan, 0, len(answers))
	for i, a := range answers {
		tp := TierPlan{Name: a.Name, SLO: rows[i].SLO, Limit: rows[i].Limit}
		at := slices.IndexFunc(gs, func(g group) bool { return g.key == a.Rec.Recommended })
		if a.Rec.Recommended.IsZero() || at < 0 {
			tp.Err = "no tested level met the tier: " + tp.Limit
			if why := rows[i].LimitReasons; len(why) > 0 {
				tp.Err += " (" + strings.Join(why, "; ") + ")"
			}
			out = append(out, tp)
			continue
		}
		tp.Bound = a.Rec.FirstFail.IsZero() && a.Rec.Unjudged.IsZero()
		p := Plan{Run: path, SLO: tp.SLO, Basis: BasisSLO, Options: o, CostPerMTok: math.NaN()}
		p.Why = fmt.Sprintf("%s is the largest tested level that met the tier with every lower level passing (%s).", gs[at].said, tp.Limit)
		if err := p.size(stats, levels, gs[at]); err != nil {
			tp.Err = err.Error()
		} else {
			tp.Plan = &p
		}
		out = append(out, tp)
	}
	return out
}

// CostPerSession is G × P / (Xs × 3600) dollars, a replica's cost for the
// time it takes to complete one session at the level; NaN without a price
// or a session rate.
func (p Plan) CostPerSession() float64 {
	sl, o := p.Level.Sessions, p.Options
	if !o.priced() || sl == nil || !(sl.PerSecond > 0) {
		return math.NaN()
	}
	return o.GPUsPerReplica * o.GPUHourUSD / (sl.PerSecond * 3600)
}

// tiersHaveSessions reports whether any tier's plan has a session rate.
func tiersHaveSessions(tiers []TierPlan) bool {
	return slices.ContainsFunc(tiers, func(t TierPlan) bool {
		return t.Plan != nil && t.Plan.Level.Sessions != nil && t.Plan.Level.Sessions.PerSecond > 0
	})
}

// WriteTierTable writes the tier table of tiers (TierPlans with o): one
// row per tier, its answer level and the plan's figures worked out there,
// then a line for each tier without a plan or whose figures are bounds.
// Nothing without tiers.
func WriteTierTable(w io.Writer, tiers []TierPlan, o Options) error {
	ew := &errWriter{w: w}
	writeTiers(ew, tiers, o)
	return ew.err
}

// writeTiers is WriteTierTable into ew.
func writeTiers(ew *errWriter, tiers []TierPlan, o Options) {
	if len(tiers) == 0 {
		return
	}
	sessions := tiersHaveSessions(tiers)
	heads := []string{"tier", "level", "X req/s", "replicas", "N+1"}
	if o.Users > 0 {
		heads = append(heads, "for N", "N+1")
	}
	heads = append(heads, "out tok/day")
	if o.priced() {
		heads = append(heads, "$/1M tok")
		if sessions {
			heads = append(heads, "$/session")
		}
	}
	heads = append(heads, "limit")
	ew.printf("\nPer SLO tier, at the highest level meeting it with every lower level passing (the formulas above, at that level):\n")
	rows := [][]string{heads}
	for _, t := range tiers {
		rows = append(rows, t.cells(o, sessions))
	}
	left := func(col int) bool { return col < 2 || col == len(heads)-1 } // tier, level, limit
	ew.printf("%s", alignRows(rows, left))
	for _, t := range tiers {
		switch {
		case t.Plan == nil:
			ew.printf("%s: %s\n", t.Name, t.Err)
		case t.Bound:
			ew.printf("%s: every level run met it, so its replicas and costs are at most these, its tokens at least\n", t.Name)
		}
		if t.Plan != nil && t.Plan.Level.ClientLimited {
			ew.printf("%s: caution: %s\n", t.Name, t.Plan.Level.caution())
		}
	}
}

// alignRows lays rows out in columns two spaces apart, each padded to its
// widest cell (in runes), on the left where left says so, else on the
// right.
func alignRows(rows [][]string, left func(col int) bool) string {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		var line strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i > 0 {
				line.WriteString("  ")
			}
			if left(i) {
				line.WriteString(c + pad)
			} else {
				line.WriteString(pad + c)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	return b.String()
}

// cells is the tier's row of the tier table, as writeTiers heads it.
func (t TierPlan) cells(o Options, sessions bool) []string {
	c := []string{t.Name}
	p := t.Plan
	if p == nil {
		c = append(c, "none", report.NoValue, report.NoValue, report.NoValue)
		if o.Users > 0 {
			c = append(c, report.NoValue, report.NoValue)
		}
		c = append(c, report.NoValue)
		if o.priced() {
			c = append(c, report.NoValue)
			if sessions {
				c = append(c, report.NoValue)
			}
		}
		return append(c, t.Limit)
	}
	c = append(c, p.Level.Key, strconv.FormatFloat(p.Level.RequestsPerS, 'f', 4, 64), strconv.Itoa(p.Replicas), strconv.Itoa(p.ReplicasN1))
	if o.Users > 0 {
		c = append(c, strconv.Itoa(p.UserReplicas), strconv.Itoa(p.UserReplicasN1))
	}
	c = append(c, fmt.Sprintf("%.1fM", p.TokensPerDay/1e6))
	if o.priced() {
		c = append(c, fmt.Sprintf("$%.4f", p.CostPerMTok))
		if sessions {
			c = append(c, cmp.Or(dollars(p.CostPerSession()), report.NoValue))
		}
	}
	return append(c, t.Limit)
}

// dollars is v as $%.6f, "" when NaN.
func dollars(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return fmt.Sprintf("$%.6f", v)
}

// TierJSON is one tier's row in plan.json ("tiers").
type TierJSON struct {
	Name  string `json:"name"`
	SLO   string `json:"slo"`
	Limit string `json:"limit"`
	// Level is the tier's answer level ("" when none met it), and the
	// figures below its plan's, named as the plan's own; absent without
	// a level, Error then saying why.
	Level          string   `json:"level,omitempty"`
	Error          string   `json:"error,omitempty"`
	RequestsPerS   *float64 `json:"requests_per_s,omitempty"`
	OutputTPS      *float64 `json:"aggregate_output_tps,omitempty"`
	Replicas       *int     `json:"replicas,omitempty"`
	ReplicasN1     *int     `json:"replicas_n_plus_1,omitempty"`
	UserReplicas   *int     `json:"user_replicas,omitempty"`
	UserReplicasN1 *int     `json:"user_replicas_n_plus_1,omitempty"`
	TokensPerDay   *float64 `json:"output_tokens_per_day_per_replica,omitempty"`
	CostPerMTok    *float64 `json:"usd_per_million_output_tokens,omitempty"`
	SessionsPerS   *float64 `json:"sessions_per_s,omitempty"`
	CostPerSession *float64 `json:"usd_per_session,omitempty"`
	// Bounds, for a tier every level met, says which way each figure
	// bounds the truth (Bounds); absent otherwise.
	Bounds map[string]string `json:"bounds,omitempty"`
}

// tiersJSON converts the tier plans for plan.json.
func tiersJSON(tiers []TierPlan) []TierJSON {
	var out []TierJSON
	for _, t := range tiers {
		j := TierJSON{Name: t.Name, SLO: t.SLO, Limit: t.Limit, Error: t.Err}
		if t.Bound && t.Plan != nil {
			j.Bounds = Bounds
		}
		if p := t.Plan; p != nil {
			l, o := p.Level, p.Options
			j.Level, j.RequestsPerS, j.OutputTPS = l.Key, &l.RequestsPerS, &l.OutputTPS
			j.Replicas, j.ReplicasN1, j.TokensPerDay = &p.Replicas, &p.ReplicasN1, &p.TokensPerDay
			if o.Users > 0 {
				j.UserReplicas, j.UserReplicasN1 = &p.UserReplicas, &p.UserReplicasN1
			}
			if !math.IsNaN(p.CostPerMTok) {
				j.CostPerMTok = &p.CostPerMTok
			}
			if sl := l.Sessions; sl != nil && sl.PerSecond > 0 {
				j.SessionsPerS = &sl.PerSecond
			}
			if c := p.CostPerSession(); !math.IsNaN(c) {
				j.CostPerSession = &c
			}
		}
		out = append(out, j)
	}
	return out
}
