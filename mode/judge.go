package mode

import (
	"math"

	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// JudgeLevels returns whether every repeat of the level of that mode at
// concurrency c passed the SLO, and the level's mean aggregate output
// tok/s, from the levels finished so far.
func JudgeLevels(stats *[]report.LevelStats, slo report.SLO, mode string) func(c int) (bool, float64) {
	return func(c int) (bool, float64) {
		k := sweep.LevelKey{Mode: mode, Concurrency: c}
		for _, g := range report.GroupByKey(*stats) {
			if g.Key == k {
				return g.Passes(slo), g.Aggregate
			}
		}
		return true, 0
	}
}

// JudgeRates returns the verdict of the open-loop level at load r of at's
// mode and cap (at with Load r) from the levels finished so far: it passes
// when every repeat is stable and meets the SLO. Levels of another key at
// that load (another mode's, another cap's) are not its.
func JudgeRates(stats *[]report.LevelStats, slo report.SLO, at sweep.LevelKey) func(r float64) RateVerdict {
	return func(r float64) RateVerdict {
		k := at
		k.Load = r
		v := RateVerdict{Pass: true}
		var sum, offered float64
		n := 0
		for _, s := range *stats {
			if s.Key() != k {
				continue
			}
			n++
			if s.Unstable {
				v.Unstable, v.Pass = true, false
			}
			if !report.CheckSLO(s, slo).Pass || s.RequestsOK == 0 {
				v.Pass = false
			}
			sum += s.AchievedRPS
			offered += s.OfferedRPS
		}
		if n == 0 {
			return RateVerdict{Achieved: math.NaN(), Offered: math.NaN()}
		}
		v.Achieved, v.Offered = sum/float64(n), offered/float64(n)
		return v
	}
}

// RateVerdict is what an open-loop search needs of a finished rate level.
type RateVerdict struct {
	Pass     bool    // stable in every repeat and met the SLO
	Unstable bool    // some repeat fell behind its arrivals
	Achieved float64 // mean achieved completion rate (req/s); NaN if none
	Offered  float64 // mean realised arrival rate (req/s); NaN if none
}
