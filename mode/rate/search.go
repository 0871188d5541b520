package rate

import (
	"fmt"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/mode/openloop"
	"github.com/toksweep/toksweep/report"
)

// Search is --rates auto: the open loop's search over request rates, its
// answer in the rate mode's words.
type Search struct{ *openloop.Search }

// NewSearch is --rates auto's search, each level judged by judge, up to
// openloop.MaxRate.
func NewSearch(judge func(float64) mode.RateVerdict) Search {
	return Search{openloop.NewSearch(judge, openloop.MaxRate)}
}

// Sentence is the search's answer for the closing paragraph.
func (p Search) Sentence() string {
	r := p.Result()
	said := func(x float64) string { return Text(r.Offered[x], x) }
	tried := openloop.JoinRates(r.Tried)
	switch {
	case r.Pass == 0:
		return fmt.Sprintf("--rates auto: no rate tried was stable and met the SLO (tried %s req/s).", tried)
	case r.Fail == 0:
		return fmt.Sprintf("--rates auto: the highest stable rate meeting the SLO is at least %s, the last tried within %d levels (tried %s req/s).", said(r.Pass), openloop.MaxLevels, tried)
	}
	s := fmt.Sprintf("--rates auto: the highest stable rate meeting the SLO is %s; %s failed", said(r.Pass), said(r.Fail))
	if r.Ceil > 0 {
		s += fmt.Sprintf(", and no rate above %.3g req/s can be stable (maximum throughput measured %.3g req/s)", r.Ceil, r.Ceil*(1-report.ShortfallMax))
	}
	return s + fmt.Sprintf(" (tried %s req/s).", tried)
}
