package compare

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/toksweep/toksweep/sweep"
)

// Title is the human name of each figure.
func (m Metric) Title() string {
	switch m {
	case DecodeP50:
		return "per-stream decode tok/s p50"
	case TTFTP50:
		return "TTFT p50"
	case TTFTP95:
		return "TTFT p95"
	case AggregateOutput:
		return "aggregate output tok/s"
	}
	return string(m)
}

// Verdict says in plain words what the estimate shows about run label
// against the baseline, at confidence conf: "B is 3.1% faster (95% CI
// 1.2–5.0%)", "B's TTFT p50 is 8.0% lower (95% CI 2.0–13.9%)", "no
// significant difference (-0.4%, 95% CI -2.1% to +1.3%)" when the interval
// includes no change, or "no meaningful difference (-0.16%, 95% CI -0.19%
// to -0.05%, under the 2% floor)" when the difference is significant but
// smaller than MinEffect. An estimate from one run a side (a Requests
// interval) gets no verdict ("no verdict from one run a side …"). It is
// empty when the estimate has no interval.
func (e Estimate) Verdict(label string, conf float64) string {
	if !e.HasCI() {
		return ""
	}
	ci := strconv.FormatFloat(100*conf, 'f', -1, 64) + "% CI"
	d, lo, hi := pct(e.Ratio), pct(e.Low), pct(e.High)
	// A difference under 1% gets two decimals, so that a real but small
	// difference never reads "0.0% faster".
	f, unit := "%.1f", 10.0
	if max(math.Abs(d), math.Abs(lo), math.Abs(hi)) < 1 {
		f, unit = "%.2f", 100
	}
	// Round before formatting, so that -0.001% reads +0.00%, not -0.00%.
	d, lo, hi = roundTo(d, unit), roundTo(lo, unit), roundTo(hi, unit)
	sf := strings.Replace(f, "%", "%+", 1)
	switch {
	case !e.Judged():
		return fmt.Sprintf("no verdict from one run a side ("+sf+"%%, %s "+sf+"%% to "+sf+"%% over requests, which ignores run-to-run variation: use --repeat 2 or more on both sides)", d, ci, lo, hi)
	case !e.Significant():
		return fmt.Sprintf("no significant difference ("+sf+"%%, %s "+sf+"%% to "+sf+"%%)", d, ci, lo, hi)
	case !e.Meaningful():
		return fmt.Sprintf("no meaningful difference ("+sf+"%%, %s "+sf+"%% to "+sf+"%%, under the %s floor)",
			d, ci, lo, hi, floor(e.MinEffect))
	}
	up, down := "higher", "lower"
	subject := label + "'s " + e.Metric.Title()
	if e.Metric == DecodeP50 {
		up, down, subject = "faster", "slower", label
	}
	word := up
	if e.Low < 1 { // significant and below 1: the whole interval is below
		word, d, lo, hi = down, -d, -hi, -lo
	}
	caveat := ""
	if e.Interval == Requests {
		caveat = "; run-to-run noise not measured"
	}
	return fmt.Sprintf("%s is "+f+"%% %s (%s "+f+"–"+f+"%%%s)", subject, d, word, ci, lo, hi, caveat)
}

// roundTo rounds v to 1/unit, with no negative zero.
func roundTo(v, unit float64) float64 {
	if r := math.Round(v*unit) / unit; r != 0 {
		return r
	}
	return 0
}

// pct is a ratio as a relative difference in percent.
func pct(ratio float64) float64 { return 100 * (ratio - 1) }

// floor formats a minimum effect as a percentage, e.g. "2%".
func floor(minEffect float64) string {
	return strconv.FormatFloat(100*minEffect, 'f', -1, 64) + "%"
}

// Overall sums up the headline figure over the compared levels, e.g.
// "B vs A, per-stream decode tok/s p50: faster at C=1,2; no significant
// difference at C=4", and says at which levels the intervals leave out
// run-to-run noise because a side ran the level once.
func (c Comparison) Overall() string {
	if len(c.Levels) == 0 {
		return fmt.Sprintf("%s vs A: no level in common", c.Label)
	}
	groups := []struct {
		name string
		ks   []sweep.LevelKey
	}{
		{name: "faster"}, {name: "slower"}, {name: "no meaningful difference"},
		{name: "no significant difference"}, {name: "no interval (too few requests)"},
		{name: "no verdict (one run a side)"},
	}
	var once []sweep.LevelKey
	for _, l := range c.Levels {
		e, g := l.Estimate(DecodeP50), 4
		switch {
		case e.HasCI() && !e.Judged():
			g = 5
		case e.Meaningful() && e.Low > 1:
			g = 0
		case e.Meaningful():
			g = 1
		case e.Significant():
			g = 2
		case e.HasCI():
			g = 3
		}
		groups[g].ks = append(groups[g].ks, l.Key)
		if e.Interval == Requests {
			once = append(once, l.Key)
		}
	}
	var parts []string
	for _, g := range groups {
		if len(g.ks) > 0 {
			parts = append(parts, g.name+" at "+sweep.NameList(g.ks))
		}
	}
	s := fmt.Sprintf("%s vs A, %s: %s", c.Label, DecodeP50.Title(), strings.Join(parts, "; "))
	if len(once) > 0 {
		s += fmt.Sprintf(" (run-to-run variation not measured at %s: a side ran the level once; use --repeat 2 or more on both sides)", sweep.NameList(once))
	}
	return s
}
