package mode

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// listed is a search that asks for loads in a fixed order, whatever the
// verdicts.
func listed(loads ...int) func() (int, bool) {
	i := 0
	return func() (int, bool) {
		if i == len(loads) {
			return 0, false
		}
		i++
		return loads[i-1], true
	}
}

// TestTierSearchRunsEachLevelOnce: three searches that share their start
// run each load once, the one most of them wait on first, the lowest on
// a tie; the cost adds each level's measured span once for the shared
// search and once per search that asked for it for the separate ones.
func TestTierSearchRunsEachLevelOnce(t *testing.T) {
	t.Parallel()
	// Each tier's search is told apart by its SLO's decode bound.
	orders := map[float64][]int{1: {1, 2, 4, 8}, 2: {1, 2, 4, 3}, 3: {1, 5}}
	tiers := []report.Tier{{Name: "a", SLO: report.SLO{DecodeTPS: 1}}, {Name: "b", SLO: report.SLO{DecodeTPS: 2}}, {Name: "c", SLO: report.SLO{DecodeTPS: 3}}}
	var stats []report.LevelStats
	key := func(c int) sweep.LevelKey { return sweep.LevelKey{Mode: sweep.ClosedMode, Concurrency: c} }
	s := NewTierSearch(tiers, func(slo report.SLO) func() (int, bool) { return listed(orders[slo.DecodeTPS]...) }, "--levels auto", &stats, key)
	var ran []int
	for c, ok := s.Next(); ok; c, ok = s.Next() {
		ran = append(ran, c)
		// Each level's span is C seconds, and C=4 ran twice (a repeat).
		for range 1 + btoi(c == 4) {
			stats = append(stats, report.LevelStats{Mode: sweep.ClosedMode, Concurrency: c, MeasuredSpan: time.Duration(c) * time.Second})
		}
	}
	if want := []int{1, 2, 4, 3, 5, 8}; !reflect.DeepEqual(ran, want) {
		t.Fatalf("ran %v, want %v", ran, want)
	}
	got := s.Cost()
	// shared: 1+2+2×4+3+5+8 = 27; separate: a 1+2+8+8 = 19, b 1+2+8+3 = 14, c 1+5 = 6.
	names := func(cs ...int) (out []string) { // the keys' names (mode's words are not linked here)
		for _, c := range cs {
			out = append(out, key(c).Name())
		}
		return out
	}
	want := &report.TierSearchJSON{Search: "--levels auto", Levels: 6, LoadSeconds: 27, SeparateLevels: 10, SeparateLoadSeconds: 39,
		Tiers: []report.TierSearchTier{
			{Name: "a", Levels: names(1, 2, 4, 8), LoadSeconds: 19},
			{Name: "b", Levels: names(1, 2, 4, 3), LoadSeconds: 14},
			{Name: "c", Levels: names(1, 5), LoadSeconds: 6}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cost %+v,\nwant %+v", got, want)
	}
	if s := s.Sentence(); !strings.Contains(s, "6 levels, 27.0 load-seconds; a search per tier would have run 10 levels, 39.0 load-seconds") {
		t.Errorf("sentence %q", s)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestSearchSLOs: the tiers, then --slo-* when set; nil without tiers.
func TestSearchSLOs(t *testing.T) {
	t.Parallel()
	slo := report.SLO{DecodeTPS: 30}
	if got := SearchSLOs(&Line{SLO: slo}); got != nil {
		t.Errorf("no tiers: %v, want nil", got)
	}
	tiers := []report.Tier{{Name: "fast", SLO: report.SLO{DecodeTPS: 100}}}
	if got := SearchSLOs(&Line{Tiers: tiers}); !reflect.DeepEqual(got, tiers) {
		t.Errorf("tiers alone: %v", got)
	}
	got := SearchSLOs(&Line{Tiers: tiers, SLO: slo})
	if len(got) != 2 || got[1].Name != "--slo-*" || got[1].SLO.DecodeTPS != 30 {
		t.Errorf("tiers and --slo-*: %v", got)
	}
}
