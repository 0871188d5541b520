package report

import "slices"

// knee finds where aggregate throughput stops growing: the first level
// that has a level at or above twice its X (C, or the offered rate), so
// that a doubling was measured, and that no higher level beats by KneeGain
// (delivers (1+KneeGain) times its aggregate or more). A dip followed by
// more growth is not a knee: the growth beyond the dip counts. ok is false
// when there is none (throughput was still growing within the levels run).
func knee(lv []LevelGroup) (LevelGroup, bool) {
	for i, l := range lv {
		higher := lv[i+1:]
		if !slices.ContainsFunc(higher, func(g LevelGroup) bool { return g.X() >= 2*l.X() }) {
			return LevelGroup{}, false
		}
		if !slices.ContainsFunc(higher, func(g LevelGroup) bool { return g.Aggregate >= (1+KneeGain)*l.Aggregate }) {
			return l, true
		}
	}
	return LevelGroup{}, false
}
