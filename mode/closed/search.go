package closed

import (
	"github.com/toksweep/toksweep/report"
)

// Search is the adaptive level search of --levels auto. It doubles the
// concurrency from 1 until a level fails the SLO, the aggregate throughput
// saturates (doubling adds less than report.KneeGain), or Max is reached;
// then, if a level failed, it bisects between the last passing and the first
// failing level until they are Granularity apart. Without an SLO every level
// that delivers output passes, so it stops at saturation; a level that
// delivers nothing (every request failed) fails. It needs about log2(Max) levels to
// bracket the answer and log2(fail−pass) more to pin it down.
type Search struct {
	max         int
	granularity int
	// judge returns the verdict of a finished level: whether every repeat of
	// it passed the SLO, and its mean aggregate output tok/s.
	judge func(c int) (pass bool, aggregate float64)

	last      int     // the level handed out last; 0 before the first
	lastAgg   float64 // aggregate of the last doubling level
	lastPass  int     // the last doubling level that passed; 0 if none
	bisecting bool
	lo, hi    int // highest passing and lowest failing level
	done      bool
}

// NewSearch is the search up to maxLevel, stopping at granularity, asking
// judge for each finished level's verdict.
func NewSearch(maxLevel, granularity int, judge func(int) (bool, float64)) *Search {
	return &Search{max: maxLevel, granularity: max(granularity, 1), judge: judge}
}

// Next implements Chooser.
func (p *Search) Next() (int, bool) {
	if p.done {
		return 0, false
	}
	if p.last == 0 {
		return p.hand(1)
	}
	pass, agg := p.judge(p.last)
	if p.bisecting {
		return p.bisect(pass)
	}
	return p.double(pass, agg)
}

func (p *Search) hand(c int) (int, bool) {
	p.last = c
	return c, true
}

// double handles the doubling phase after level p.last finished.
func (p *Search) double(pass bool, agg float64) (int, bool) {
	c := p.last
	saturated := c > 1 && agg < (1+report.KneeGain)*p.lastAgg
	p.lastAgg = agg
	switch {
	case !pass || !(agg > 0): // a level that delivered nothing fails, SLO or not
		p.bisecting, p.lo, p.hi = true, p.lastPass, c
		return p.bisect(false)
	case saturated || c >= p.max:
		p.done = true
		return 0, false
	}
	p.lastPass = c
	return p.hand(min(2*c, p.max))
}

// bisect narrows [lo, hi] after the level p.last finished.
func (p *Search) bisect(pass bool) (int, bool) {
	if p.last != p.hi { // the level just run was a midpoint
		if pass {
			p.lo = p.last
		} else {
			p.hi = p.last
		}
	}
	if p.lo == 0 || p.hi-p.lo <= p.granularity {
		p.done = true
		return 0, false
	}
	return p.hand((p.lo + p.hi) / 2)
}
