package closed

import (
	"reflect"
	"slices"
	"testing"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// TestTierSearchAsksWhatEachSearchWould: on a scripted server whose tier
// t passes up to limits[t] users, the shared search of --levels auto
// asks, for each tier, exactly the levels that tier's own search asks and
// so finds its answer; it runs each level once, fewer in all than the
// searches apart.
func TestTierSearchAsksWhatEachSearchWould(t *testing.T) {
	t.Parallel()
	for _, limits := range [][]int{{3, 5, 11}, {1, 1, 64}, {40, 7, 2}, {0, 100, 256}} {
		var tiers []report.Tier
		for i := range limits { // the SLO's decode bound tells the tiers apart
			tiers = append(tiers, report.Tier{Name: string(rune('a' + i)), SLO: report.SLO{DecodeTPS: float64(i + 1)}})
		}
		limit := func(slo report.SLO) int { return limits[int(slo.DecodeTPS)-1] }
		newSearch := func(slo report.SLO) *Search { return NewSearch(256, 1, scripted(limit(slo), 10000)) }
		var stats []report.LevelStats
		shared := mode.NewTierSearch(tiers, func(slo report.SLO) func() (int, bool) { return newSearch(slo).Next },
			"--levels auto", &stats, func(c int) sweep.LevelKey { return sweep.LevelKey{Mode: sweep.ClosedMode, Concurrency: c} })
		var ran []int
		for c, ok := shared.Next(); ok; c, ok = shared.Next() {
			if slices.Contains(ran, c) {
				t.Fatalf("limits %v: C=%d ran twice (%v)", limits, c, ran)
			}
			ran = append(ran, c)
			stats = append(stats, report.LevelStats{Mode: sweep.ClosedMode, Concurrency: c})
		}
		cost := shared.Cost()
		separate := 0
		for i, tier := range tiers {
			alone := runPlan(newSearch(tier.SLO))
			separate += len(alone)
			var names []string
			for _, c := range alone {
				names = append(names, sweep.LevelKey{Mode: sweep.ClosedMode, Concurrency: c}.Name())
			}
			if got := cost.Tiers[i].Levels; !reflect.DeepEqual(got, names) {
				t.Errorf("limits %v, tier %s: asked %v, alone %v", limits, tier.Name, got, names)
			}
		}
		if cost.Levels != len(ran) || cost.SeparateLevels != separate || len(ran) >= separate {
			t.Errorf("limits %v: ran %d levels (cost says %d), apart %d (cost says %d): want fewer shared", limits, len(ran), cost.Levels, separate, cost.SeparateLevels)
		}
	}
}
