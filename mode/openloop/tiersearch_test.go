package openloop

import (
	"reflect"
	"slices"
	"testing"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// TestTierSearchAsksWhatEachRateSearchWould: on a server stable up to
// 50 req/s whose tiers pass up to their own rates, the shared search of
// the open loop asks each tier's rates exactly as its own search does,
// runs each rate once and fewer than the searches apart.
func TestTierSearchAsksWhatEachRateSearchWould(t *testing.T) {
	t.Parallel()
	const capacity = 50.0
	for _, limits := range [][]float64{{3.3, 7, 20}, {0.5, 60, 60}, {12, 12.5, 200}} {
		var tiers []report.Tier
		for i := range limits {
			tiers = append(tiers, report.Tier{Name: string(rune('a' + i)), SLO: report.SLO{DecodeTPS: float64(i + 1)}})
		}
		newSearch := func(slo report.SLO) *Search {
			limit := limits[int(slo.DecodeTPS)-1]
			return NewSearch(func(r float64) mode.RateVerdict {
				achieved := min(r, capacity)
				return mode.RateVerdict{Pass: r <= limit && r <= capacity, Unstable: r > capacity, Achieved: achieved, Offered: r}
			}, MaxRate)
		}
		key := func(r float64) sweep.LevelKey { return sweep.LevelKey{Mode: sweep.RateMode, Load: r} }
		var stats []report.LevelStats
		shared := mode.NewTierSearch(tiers, func(slo report.SLO) func() (float64, bool) { return newSearch(slo).Next }, "--rates auto", &stats, key)
		var ran []float64
		for r, ok := shared.Next(); ok; r, ok = shared.Next() {
			if slices.Contains(ran, r) {
				t.Fatalf("limits %v: %g req/s ran twice (%v)", limits, r, ran)
			}
			ran = append(ran, r)
		}
		cost, separate := shared.Cost(), 0
		for i, tier := range tiers {
			var alone []string
			s := newSearch(tier.SLO)
			for r, ok := s.Next(); ok; r, ok = s.Next() {
				alone = append(alone, key(r).Name())
			}
			separate += len(alone)
			if got := cost.Tiers[i].Levels; !reflect.DeepEqual(got, alone) {
				t.Errorf("limits %v, tier %s: asked %v, alone %v", limits, tier.Name, got, alone)
			}
		}
		if len(ran) != cost.Levels || len(ran) >= separate {
			t.Errorf("limits %v: ran %d levels (%v), apart %d: want fewer shared", limits, len(ran), ran, separate)
		}
	}
}
