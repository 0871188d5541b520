package mode

import (
	"cmp"
	"slices"

	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// TierSearch is the adaptive search of a sweep with SLO tiers: one search
// per tier (and one for --slo-* when it is given), run in lockstep on
// shared levels. Each search asks for its next level exactly as it would
// on its own; a level that another search has already measured is judged
// at once, from that measurement, without running it again. Of the levels
// still wanted, the one most searches want runs next (the lowest on a
// tie). So each tier's levels, verdicts and answer are those its own
// search would have had on the same measurements, and no level runs
// twice: the searches share their common start (the ramp from the lowest
// load) and part ways where their verdicts differ.
//
// L is the level's load: a closed loop's concurrency, an open loop's rate
// or speed. It is a Chooser of its mode (closed.Chooser,
// openloop.Chooser).
type TierSearch[L cmp.Ordered] struct {
	flag  string                 // the mode's search, "--levels auto", for the sentence
	key   func(L) sweep.LevelKey // the level key of a load, to find its stats
	stats *[]report.LevelStats   // the finished levels
	runs  []*tierRun[L]
	ran   []L // the loads handed out, in order
}

// tierRun is one tier's search: its next, and the loads it asked for.
type tierRun[L cmp.Ordered] struct {
	name  string
	next  func() (L, bool)
	asked []L
	done  bool
}

// SearchSLOs is what a tier search searches against: every tier, then
// --slo-* (named "--slo-*") when it is set; nil without tiers, when the
// mode's own search follows --slo-* alone.
func SearchSLOs(l *Line) []report.Tier {
	if len(l.Tiers) == 0 {
		return nil
	}
	out := slices.Clone(l.Tiers)
	if l.SLO.Set() {
		out = append(out, report.Tier{Name: "--slo-*", SLO: l.SLO})
	}
	return out
}

// NewTierSearch is the shared search of tiers, each searched by the
// search newSearch makes for its SLO (its Next), for the mode's search
// named flag. stats are the finished levels and key a load's level key,
// for the search's cost (TierSearch.Cost).
func NewTierSearch[L cmp.Ordered](tiers []report.Tier, newSearch func(report.SLO) func() (L, bool),
	flag string, stats *[]report.LevelStats, key func(L) sweep.LevelKey) *TierSearch[L] {
	t := &TierSearch[L]{flag: flag, key: key, stats: stats}
	for _, tier := range tiers {
		t.runs = append(t.runs, &tierRun[L]{name: tier.Name, next: newSearch(tier.SLO)})
	}
	return t
}

// Next is the next load to run, once the one handed out last has
// finished; ok is false when every tier's search is over.
func (t *TierSearch[L]) Next() (load L, ok bool) {
	t.advance()
	wants := map[L]int{}
	for _, r := range t.runs {
		if !r.done {
			wants[r.asked[len(r.asked)-1]]++
		}
	}
	if len(wants) == 0 {
		return load, false
	}
	first := true
	for l, n := range wants {
		if first || n > wants[load] || (n == wants[load] && l < load) {
			load, first = l, false
		}
	}
	t.ran = append(t.ran, load)
	return load, true
}

// advance moves every search whose last load has run on to its next,
// until each one that is not over waits on a load not run yet.
func (t *TierSearch[L]) advance() {
	for moved := true; moved; {
		moved = false
		for _, r := range t.runs {
			if r.done || (len(r.asked) > 0 && !slices.Contains(t.ran, r.asked[len(r.asked)-1])) {
				continue
			}
			if l, ok := r.next(); ok {
				r.asked = append(r.asked, l)
			} else {
				r.done = true
			}
			moved = true
		}
	}
}

// Cost is the tier search's cost in load-seconds (docs/metrics.md, SLO
// tiers): what the shared levels spent, and what one search per tier
// would have spent on the same measurements, from the finished levels.
func (t *TierSearch[L]) Cost() *report.TierSearchJSON {
	var tiers []report.TierLevels
	for _, r := range t.runs {
		ran := slices.DeleteFunc(slices.Clone(r.asked), func(l L) bool { return !slices.Contains(t.ran, l) })
		tiers = append(tiers, report.TierLevels{Name: r.name, Keys: t.keys(ran)})
	}
	return report.NewTierSearchJSON(t.flag, t.keys(t.ran), tiers, *t.stats)
}

// keys is the level keys of loads.
func (t *TierSearch[L]) keys(loads []L) []sweep.LevelKey {
	var keys []sweep.LevelKey
	for _, l := range loads {
		keys = append(keys, t.key(l))
	}
	return keys
}

// Sentence is the search's cost for the closing paragraph; each tier's
// answer is its row of the tier table.
func (t *TierSearch[L]) Sentence() string { return t.Cost().Sentence() }
