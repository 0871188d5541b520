package report

import (
	"fmt"
	"strings"
	"time"
)

// The client-limit thresholds (docs/metrics.md, "client_limited"). No single
// symptom flags a level: each check needs a symptom and the evidence that it
// came from the client and mattered for the figures. A Health field that is
// zero was not measured and is ignored.
const (
	// InflightMinRatio and IssueLagLimit make the closed-loop check: the
	// mean number of requests in flight over the window fell below
	// InflightMinRatio × C while some worker started its next request more
	// than IssueLagLimit after its previous one ended. A shortfall without
	// the lag comes from elsewhere (requests failing at once spend most of
	// their worker's time between requests); a lag without the shortfall
	// cost the server no load.
	InflightMinRatio = 0.95
	IssueLagLimit    = 20 * time.Millisecond
	// TimerLateFloor and TimerLateShare make the timestamp check: the
	// client's lateness exceeded TimerLateFloor and TimerLateShare of the
	// ITL p50 (the TTFT p50 when there is no ITL), so token timestamps may
	// be late by an amount that matters next to the gaps being measured.
	// Below the floor, lateness is ordinary timer and scheduler noise. The
	// lateness is the measured client delay (ClientDelayP99) when the
	// server stamps its events, else the p99 lateness of the 10 ms ticker.
	TimerLateFloor = 5 * time.Millisecond
	TimerLateShare = 0.25
	// CPUBusyMax makes the CPU check: the client's CPU time reached this
	// fraction of wall time × GOMAXPROCS while the client's lateness
	// exceeded TimerLateFloor. A busy client that still keeps time is not
	// flagged.
	CPUBusyMax = 0.90
)

// clientLimited applies the client-limit checks to s, returning whether any
// fired and a "; "-separated account of the evidence of those that did.
func clientLimited(s *LevelStats) (bool, string) {
	var why []string
	h := s.Health
	// Sessions' think time idles workers on purpose: the in-flight mean is
	// judged against the share of C that was not thinking.
	// An open loop has no C to hold (its C is a cap): the dispatch delay
	// is its closed-loop check.
	if c := float64(s.Concurrency) * (1 - s.Session.ThinkShare); !s.Key().IsOpen() && c > 0 && s.RequestsOK > 0 && s.InflightMean/c < InflightMinRatio && h.IssueLagMax > IssueLagLimit {
		why = append(why, fmt.Sprintf("in-flight %.2f of C=%d with issue lag max %.1f ms",
			s.InflightMean, s.Concurrency, Ms(h.IssueLagMax)))
	}
	// An uncapped open loop whose sender fell behind its schedule: with a
	// cap, waiting for a slot is the queueing the level asked for.
	if s.Key().Unbounded() && s.DispatchDelayP99 != NoSample && s.DispatchDelayP99 > DispatchDelayLimit {
		why = append(why, fmt.Sprintf("dispatch delay p99 %.1f ms (> %v behind the schedule)", Ms(s.DispatchDelayP99), DispatchDelayLimit))
	}
	lateness, lateName := h.TimerLateP99, "timer late p99"
	if s.ClientDelayP99 != NoSample {
		lateness, lateName = s.ClientDelayP99, "client read delay p99"
	}
	late := lateness > TimerLateFloor
	ref, refName := s.ITLP50, "ITL p50"
	if ref == NoSample {
		ref, refName = s.TTFTP50, "TTFT p50"
	}
	// A reference of 0 (tokens that arrive bunched, many per read) is
	// exceeded by any lateness.
	lateForFigures := late && ref != NoSample && ref >= 0 && float64(lateness) > TimerLateShare*float64(ref)
	switch {
	case lateForFigures && ref > 0:
		why = append(why, fmt.Sprintf("%s %.1f ms (%s %s %.1f ms)",
			lateName, Ms(lateness), ratioWords(float64(lateness)/float64(ref)), refName, Ms(ref)))
	case lateForFigures:
		why = append(why, fmt.Sprintf("%s %.1f ms (%s 0.0 ms)", lateName, Ms(lateness), refName))
	}
	if busy := cpuBusy(h.CPUSeconds, h.WallSeconds, h.GOMAXPROCS); late && busy >= CPUBusyMax {
		cpu := fmt.Sprintf("client CPU %.0f%% of %d procs", 100*busy, h.GOMAXPROCS)
		if !lateForFigures {
			cpu += fmt.Sprintf(" with %s %.1f ms", lateName, Ms(lateness))
		}
		why = append(why, cpu)
	}
	return len(why) > 0, strings.Join(why, "; ")
}

// cpuBusy is the client's CPU time as a fraction of what GOMAXPROCS cores
// offer over the level; 0 when not measured.
func cpuBusy(cpu, wall float64, procs int) float64 {
	if cpu <= 0 || wall <= 0 || procs <= 0 {
		return 0
	}
	return cpu / (wall * float64(procs))
}

// ClientLimitedNote is the console and report footnote of a flagged level,
// worded by its mode (sweep.Words.Limited: a closed loop's possibility,
// "C=8 may have been client-limited", an open loop's measured "rate=16/s
// was client-limited"), with its evidence; "" when s is not flagged.
func ClientLimitedNote(s LevelStats) string {
	if !s.ClientLimited {
		return ""
	}
	return fmt.Sprintf("%s %s client-limited: %s", LevelName(s), s.Key().Words().Limited(1), s.ClientLimitedReason)
}

// ratioWords words a ratio for a reader: "60% of" below 2, "3.2× the" above.
func ratioWords(r float64) string {
	if r >= 2 {
		return fmt.Sprintf("%.1f× the", r)
	}
	return fmt.Sprintf("%.0f%% of", 100*r)
}
