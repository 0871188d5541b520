package replay

import (
	"fmt"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/mode/openloop"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// Speeds is the search of --replay-speed auto: the open loop's search run
// in speeds, from speed 1, each level judged on its achieved and offered
// rates turned into speeds (over the trace's mean rate), answered in
// speeds with the offered rate.
type Speeds struct {
	*openloop.Search
	mean float64 // the trace's mean rate, req/s at speed 1
}

// NewSpeeds is the speed search of a trace of mean rate mean (req/s),
// judged on stats (the replay levels of cap maxConc, keyed by speed)
// against slo, up to maxSpeed.
func NewSpeeds(stats *[]report.LevelStats, slo report.SLO, maxConc int, mean, maxSpeed float64) Speeds {
	judge := mode.JudgeRates(stats, slo, sweep.LevelKey{Mode: Name, Concurrency: maxConc})
	s := openloop.NewSearch(func(speed float64) mode.RateVerdict {
		v := judge(speed)
		v.Achieved, v.Offered = v.Achieved/mean, v.Offered/mean
		return v
	}, maxSpeed)
	s.Start = 1
	return Speeds{Search: s, mean: mean}
}

// Sentence is the search's answer for the closing paragraph.
func (s Speeds) Sentence() string {
	r := s.Result()
	tried := openloop.JoinRates(r.Tried) + "×"
	switch {
	case r.Pass == 0:
		return fmt.Sprintf("--replay-speed auto: no speed tried was stable and met the SLO (tried %s).", tried)
	case r.Fail == 0:
		return fmt.Sprintf("--replay-speed auto: the highest stable speed meeting the SLO is at least %s, the last tried within %d levels (tried %s).", s.answer(r), openloop.MaxLevels, tried)
	}
	return fmt.Sprintf("--replay-speed auto: the highest stable speed meeting the SLO is %s; %g× failed (tried %s).", s.answer(r), r.Fail, tried)
}

// answer is the highest passing speed with its offered rate: "2× (40 req/s
// offered)".
func (s Speeds) answer(r openloop.Result) string {
	off := r.Offered[r.Pass] * s.mean
	if !(off > 0) {
		off = r.Pass * s.mean
	}
	return fmt.Sprintf("%g× (%.4g req/s offered)", r.Pass, off)
}
