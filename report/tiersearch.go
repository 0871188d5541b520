package report

import (
	"fmt"
	"strings"

	"github.com/toksweep/toksweep/sweep"
)

// TierSearchJSON is the cost of an adaptive search over SLO tiers
// (mode.TierSearch), summary.json's "tier_search": the levels the shared
// search ran and their load-seconds, against the levels and load-seconds
// of one search per tier on the same measurements (docs/metrics.md, SLO
// tiers).
type TierSearchJSON struct {
	Search              string           `json:"search"` // the mode's search, "--levels auto"
	Levels              int              `json:"levels"`
	LoadSeconds         float64          `json:"load_seconds"`
	SeparateLevels      int              `json:"separate_levels"`
	SeparateLoadSeconds float64          `json:"separate_load_seconds"`
	Tiers               []TierSearchTier `json:"tiers"`
}

// TierSearchTier is one tier's own search: the levels it asked for, in
// order, and their load-seconds.
type TierSearchTier struct {
	Name        string   `json:"name"`
	Levels      []string `json:"levels"`
	LoadSeconds float64  `json:"load_seconds"`
}

// TierLevels is the levels one tier's search asked for, in order.
type TierLevels struct {
	Name string
	Keys []sweep.LevelKey
}

// NewTierSearchJSON is the cost of the shared search that search ran
// (the levels ran, in order) for tiers, from the finished levels stats.
func NewTierSearchJSON(search string, ran []sweep.LevelKey, tiers []TierLevels, stats []LevelStats) *TierSearchJSON {
	j := &TierSearchJSON{Search: search, Levels: len(ran), LoadSeconds: roundTo(LoadSeconds(stats, ran), 1)}
	separate := 0.0
	for _, t := range tiers {
		var names []string
		for _, k := range t.Keys {
			names = append(names, k.Name())
		}
		s := LoadSeconds(stats, t.Keys)
		separate += s
		j.SeparateLevels += len(t.Keys)
		j.Tiers = append(j.Tiers, TierSearchTier{Name: t.Name, Levels: names, LoadSeconds: roundTo(s, 1)})
	}
	j.SeparateLoadSeconds = roundTo(separate, 1)
	return j
}

// LoadSeconds is the load-seconds of the levels keyed keys: the sum of
// MeasuredSpan over every run (repeat) of each, in seconds. A key listed
// twice counts twice, as a search that ran it twice would.
func LoadSeconds(stats []LevelStats, keys []sweep.LevelKey) float64 {
	total := 0.0
	for _, k := range keys {
		for _, s := range stats {
			if s.Key() == k {
				total += s.MeasuredSpan.Seconds()
			}
		}
	}
	return total
}

// roundTo is v rounded to decimals; 0 for an undefined v.
func roundTo(v float64, decimals int) float64 {
	if r := rounded(v, decimals); r != nil {
		return *r
	}
	return 0
}

// Sentence is the search's cost in the closing paragraph.
func (j *TierSearchJSON) Sentence() string {
	var levels []string
	for _, t := range j.Tiers {
		levels = append(levels, fmt.Sprintf("%s %s", t.Name, strings.Join(t.Levels, ",")))
	}
	return fmt.Sprintf("%s, shared by %d tier searches: %d levels, %.1f load-seconds; a search per tier would have run %d levels, %.1f load-seconds (%s).",
		j.Search, len(j.Tiers), j.Levels, j.LoadSeconds, j.SeparateLevels, j.SeparateLoadSeconds, strings.Join(levels, "; "))
}
