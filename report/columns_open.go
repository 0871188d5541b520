package report

import (
	"slices"
	"strings"
)

// anyRate shows the open-loop columns when a level is keyed by rate.
func anyRate(stats []LevelStats) bool {
	return slices.ContainsFunc(stats, func(s LevelStats) bool { return s.Key().IsOpen() })
}

// loadHead is the load column's heading in the open-loop levels' words
// (sweep.Words.Head: "rate/s", a replay's "speed×"); "rate/s" when none
// says.
func loadHead(stats []LevelStats) string { return modeHead(stats, true, "rate/s") }

// countHead is the concurrency column's heading in the closed-loop levels'
// words ("C", sessions' "sessions"); "C" when none says (an open loop's
// cap).
func countHead(stats []LevelStats) string { return modeHead(stats, false, "C") }

// modeHead is the Words.Head of the levels of stats that are (open) or
// are not open loops, the modes' headings joined by " / " should the
// levels mix modes; none when no level's mode names one.
func modeHead(stats []LevelStats, open bool, none string) string {
	var heads []string
	for _, s := range stats {
		if w := s.Key().Words(); s.Key().IsOpen() == open && w.Head != "" && !slices.Contains(heads, w.Head) {
			heads = append(heads, w.Head)
		}
	}
	if len(heads) == 0 {
		return none
	}
	return strings.Join(heads, " / ")
}

// anyConcurrency shows the C column unless every level is unbounded (an
// uncapped open loop, where C is 0).
func anyConcurrency(stats []LevelStats) bool {
	return len(stats) == 0 || slices.ContainsFunc(stats, func(s LevelStats) bool { return !s.Key().Unbounded() })
}

// concurrencyColumn is C, the closed loop's workers (an open loop's cap),
// headed in the closed-loop levels' words (countHead).
func concurrencyColumn() Column {
	c := shownWhen(anyConcurrency, shown(countColumn("concurrency", "workers", "C (open loop: the --max-concurrency cap, 0 for none)", func(s *LevelStats) int { return s.Concurrency }), LeadTable, "", "C"))
	c.Heads = countHead
	return c
}

// openValue is f's value for an open-loop level, no value in a closed loop.
func openValue(f func(*LevelStats) Value) func(*LevelStats) Value {
	return func(s *LevelStats) Value {
		if !s.Key().IsOpen() {
			return Value{}
		}
		return f(s)
	}
}

func rpsColumn(name, def string, f func(*LevelStats) float64) Column {
	return Column{Name: name, Unit: "req/s", Def: def, Out: InFiles, Decimals: rpsDecimals, PeopleDecimals: 2,
		Value: func(s *LevelStats) Value { return number(f(s)) }}
}

// goodputValue is f of the level's SLO verdict, no value without an SLO.
func goodputValue(f func(*SLOResult) float64) func(*LevelStats) Value {
	return func(s *LevelStats) Value {
		if s.SLO == nil {
			return Value{}
		}
		return number(f(s.SLO))
	}
}

// openColumns are the figures of the open loop (sweep --rates), the rates
// and in-flight peak both loops share, TPOT and goodput; docs/metrics.md
// ("Open loop") defines them.
func openColumns() []Column {
	rate := rpsColumn("rate", "the offered rate λ the level is keyed by (open loop; a trace replay: its speed, ×); empty in a closed loop", func(s *LevelStats) float64 { return s.Rate })
	rate.Value = openValue(rate.Value)
	rate.Table, rate.Head, rate.Show, rate.PeopleDecimals = LeadTable, "rate/s", anyRate, 3
	rate.Heads = loadHead
	offered := rpsColumn("offered_rps", "realised arrival rate: (n − 1) / (last − first scheduled instant) of the measured requests", func(s *LevelStats) float64 { return s.OfferedRPS })
	offered.Table, offered.Head, offered.Show = AggregateTable, "offered/s", anyRate
	achieved := rpsColumn("achieved_rps", "completion rate (open loop): (finished − 1) / (last End − first End), finished = not canceled", func(s *LevelStats) float64 { return s.AchievedRPS })
	achieved.Table, achieved.Head, achieved.Show = AggregateTable, "achieved/s", anyRate
	achieved.Flag = func(s *LevelStats) bool { return s.Unstable }
	delay := func(name, def, head string, f func(*LevelStats) Value) Column {
		c := msColumn(name, def, NoTable, "", "", openValue(f))
		if head != "" {
			c.Table, c.Head, c.Show = AggregateTable, head, anyRate
			c.Flag = func(s *LevelStats) bool { return s.ClientLimited }
		}
		return c
	}
	return []Column{
		rate,
		offered,
		achieved,
		delay("dispatch_delay_p50_ms", "dispatch delay Start − Sched (open loop), p50", "", func(s *LevelStats) Value { return millis(s.DispatchDelayP50) }),
		delay("dispatch_delay_p99_ms", "dispatch delay, p99 (client-limited above 10 ms, uncapped)", "dispatch p99 ms", func(s *LevelStats) Value { return millis(s.DispatchDelayP99) }),
		delay("dispatch_delay_max_ms", "dispatch delay, max", "", func(s *LevelStats) Value { return millis(s.DispatchDelayMax) }),
		{Name: "inflight_peak", Unit: "requests", Def: "most measured requests on the wire (Start to End) at once", Out: InFiles,
			Table: AggregateTable, Head: "peak in-flight", Show: anyRate, Value: func(s *LevelStats) Value { return count(s.InflightPeak) }},
		delay("ttft_rise_ms", "TTFT fitted over the scheduled instant: slope × span (open loop)", "", func(s *LevelStats) Value { return millis(s.TTFTRise) }),
		{Name: "unstable", Unit: "bool", Def: "the open-loop level could not keep up (see Open loop); empty in a closed loop", Out: InFiles,
			Value: openValue(func(s *LevelStats) Value { return boolean(s.Unstable) })},
		{Name: "unstable_reason", Def: "the stability checks that fired", Out: InFiles, Table: AggregateTable, Head: "stability", Left: true, Show: anyRate,
			Value: func(s *LevelStats) Value { return text(s.UnstableReason) },
			Text: func(s *LevelStats) string {
				if s.Unstable {
					return "UNSTABLE: " + s.UnstableReason
				}
				return "stable"
			},
			Flag: func(s *LevelStats) bool { return s.Unstable }},
		msColumn("tpot_p50_ms", "TPOT per request, (End − FirstToken) / (U − 1), p50 (vLLM's TPOT)", NoTable, "", "", func(s *LevelStats) Value { return millis(s.TPOTP50) }),
		msColumn("tpot_p99_ms", "TPOT per request, p99", NoTable, "", "", func(s *LevelStats) Value { return millis(s.TPOTP99) }),
		{Name: "goodput_rps", Unit: "req/s", Def: "good requests per second: goodput_ratio × achieved_rps (closed loop: good / ok × requests_per_s); empty without an SLO", Out: InFiles, Decimals: rpsDecimals, PeopleDecimals: 2,
			Value: goodputValue(func(r *SLOResult) float64 { return r.GoodputRPS })},
		{Name: "goodput_ratio", Unit: "fraction", Def: "finished requests that succeeded and met every per-request SLO / finished", Out: InFiles, Decimals: fracDecimals, PeopleDecimals: 2,
			Value: goodputValue(func(r *SLOResult) float64 { return r.GoodputRatio })},
	}
}
