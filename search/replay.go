package search

import (
	"fmt"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// Speeds is the search of --replay-speed auto (a sweep.RatePlanner over
// replay speeds): the rate search of Rates run in speeds, from speed 1,
// each level judged on its achieved and offered rates turned into speeds
// (over the trace's mean rate), answered in speeds with the offered rate.
type Speeds struct {
	r    *Rates
	mean float64 // the trace's mean rate, req/s at speed 1
}

// NewSpeeds is the speed search of a trace of mean rate mean (req/s),
// judged on stats (the replay levels of cap maxConc, keyed by speed)
// against slo, up to maxSpeed.
func NewSpeeds(stats *[]report.LevelStats, slo report.SLO, maxConc int, mean, maxSpeed float64) *Speeds {
	judge := mode.JudgeRates(stats, slo, sweep.LevelKey{Mode: sweep.ReplayMode, Concurrency: maxConc})
	r := NewRates(func(speed float64) mode.RateVerdict {
		v := judge(speed)
		v.Achieved, v.Offered = v.Achieved/mean, v.Offered/mean
		return v
	}, maxSpeed)
	r.Start = 1
	return &Speeds{r: r, mean: mean}
}

// NextRate implements sweep.RatePlanner: the next speed.
func (s *Speeds) NextRate() (float64, bool) { return s.r.NextRate() }

// Sentence is the search's answer for the closing paragraph.
func (s *Speeds) Sentence() string {
	p := s.r
	tried := JoinRates(p.tried) + "×"
	switch {
	case p.lo == 0:
		return fmt.Sprintf("--replay-speed auto: no speed tried was stable and met the SLO (tried %s).", tried)
	case p.hi == 0:
		return fmt.Sprintf("--replay-speed auto: the highest stable speed meeting the SLO is at least %s, the last tried within %d levels (tried %s).", s.answer(), RateAutoLevels, tried)
	}
	return fmt.Sprintf("--replay-speed auto: the highest stable speed meeting the SLO is %s; %g× failed (tried %s).", s.answer(), p.hi, tried)
}

// answer is the highest passing speed with its offered rate: "2× (40 req/s
// offered)".
func (s *Speeds) answer() string {
	off := s.r.offered[s.r.lo] * s.mean
	if !(off > 0) {
		off = s.r.lo * s.mean
	}
	return fmt.Sprintf("%g× (%.4g req/s offered)", s.r.lo, off)
}
