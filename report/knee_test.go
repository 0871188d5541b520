package report

import (
	"testing"

	"github.com/toksweep/toksweep/sweep"
)

// kneeLevels is closed-loop levels at the concurrencies cs with the
// aggregate output tok/s aggs, made by hand.
func kneeLevels(cs []int, aggs []float64) []LevelGroup {
	var lv []LevelGroup
	for i, c := range cs {
		lv = append(lv, LevelGroup{Key: sweep.LevelKey{Mode: sweep.ClosedMode, Concurrency: c}, Aggregate: aggs[i]})
	}
	return lv
}

// TestKneeIsWhereThroughputStopsGrowing: the knee is the first level that
// no higher level beats by KneeGain (10%) in aggregate tok/s. A dip followed
// by more growth is not a knee; a plateau is; levels that keep growing have
// none.
func TestKneeIsWhereThroughputStopsGrowing(t *testing.T) {
	for _, tc := range []struct {
		name string
		cs   []int
		aggs []float64
		want int // the knee's C, 0: none
	}{
		// C=4 dips below C=2 (180 < 220), but C=8 delivers 400, twice
		// C=2's 200: throughput had not stopped growing at C=2 or C=4.
		{"dip then growth", []int{1, 2, 4, 8}, []float64{100, 200, 180, 400}, 0},
		// The same dip, and then a plateau: at C=8 (400) nothing higher
		// reaches 440.
		{"dip, growth, plateau", []int{1, 2, 4, 8, 16, 32}, []float64{100, 200, 180, 400, 420, 430}, 8},
		// C=2 delivers 200; 210 and 215 above it are under 220.
		{"plateau", []int{1, 2, 4, 8}, []float64{100, 200, 210, 215}, 2},
		// Each doubling nearly doubles the aggregate.
		{"monotone", []int{1, 2, 4, 8}, []float64{100, 190, 370, 700}, 0},
		// The last level has nothing above it: no claim about it.
		{"growth to the last level", []int{1, 2}, []float64{100, 150}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, ok := knee(kneeLevels(tc.cs, tc.aggs))
			switch {
			case tc.want == 0 && ok:
				t.Errorf("knee at %s, want none", k.Name())
			case tc.want != 0 && !ok:
				t.Errorf("no knee, want C=%d", tc.want)
			case tc.want != 0 && k.Key.Concurrency != tc.want:
				t.Errorf("knee at %s, want C=%d", k.Name(), tc.want)
			}
		})
	}
}
