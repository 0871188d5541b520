package report

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/toksweep/toksweep/client"
)

// SessionStats are a level's multi-turn figures (sweep.Sessions), over its
// measured requests. A level without sessions has Sessions 0 and no value
// in the others. docs/metrics.md defines each.
type SessionStats struct {
	// Per turn, over successful requests: turn 1 against the later turns.
	TTFTTurn1P50, TTFTTurn1P95 time.Duration
	TTFTLaterP50, TTFTLaterP95 time.Duration
	// Prompt tokens per turn, mean over successful requests whose usage
	// reported prompt_tokens.
	PromptTokensTurn1Mean, PromptTokensLaterMean float64

	Sessions       int         // measured sessions (distinct Record.Session)
	SessionsFailed int         // sessions ended by a failed turn
	Failures       ErrorCounts // their failed turns' classes
	TurnsMean      float64     // successful turns per session, mean
	// DurationP50 and DurationP95 span a session: its last turn's End −
	// its first turn's Start, think time included.
	DurationP50, DurationP95 time.Duration
	// ThinkShare is the share of the sessions' time with none of their
	// turns in flight: 1 − ServerShare (0 without pauses). The
	// client-limit check allows for it.
	ThinkShare float64
	// ServerShare, ToolShare and PauseShare split the sessions' time
	// (Σ durations): with a turn in flight, and idle before a turn sent
	// after a tool wait or a think time (sessions_agent.go).
	ServerShare, ToolShare, PauseShare float64
	// TTFTLongP50 and TTFTLongP95 are over the successful turns whose
	// prompt is at least LongHistoryShare history (Record.History), of
	// which there are LongTurns.
	TTFTLongP50, TTFTLongP95 time.Duration
	LongTurns                int
}

// session is one session's requests, as sessionStats gathers them.
type session struct {
	turns  []*request
	ok     int
	failed client.ErrorClass
}

// sessionStats computes the SessionStats of a level's measured requests.
func sessionStats(measured []request) SessionStats {
	st := SessionStats{Failures: newErrorCounts()}
	var ttft1, ttftN, ttftLong, prompt1, promptN []float64
	byID := map[int]*session{}
	var order []int
	for i := range measured {
		r := &measured[i]
		if r.session == 0 {
			continue
		}
		ss := byID[r.session]
		if ss == nil {
			ss = &session{}
			byID[r.session] = ss
			order = append(order, r.session)
		}
		ss.turns = append(ss.turns, r)
		if !r.ok() {
			ss.failed = r.class
			continue
		}
		ss.ok++
		ttft, prompt := &ttftN, &promptN
		if r.turn <= 1 && r.branch == 0 {
			ttft, prompt = &ttft1, &prompt1
		}
		if r.chunks > 0 {
			*ttft = append(*ttft, float64(r.ttft))
			if r.history >= LongHistoryShare {
				ttftLong = append(ttftLong, float64(r.ttft))
			}
		}
		if r.prompt > 0 {
			*prompt = append(*prompt, float64(r.prompt))
		}
	}
	for _, xs := range [][]float64{ttft1, ttftN, ttftLong} {
		slices.Sort(xs)
	}
	st.TTFTTurn1P50, st.TTFTTurn1P95 = duration(Percentile(ttft1, 50)), duration(Percentile(ttft1, 95))
	st.TTFTLaterP50, st.TTFTLaterP95 = duration(Percentile(ttftN, 50)), duration(Percentile(ttftN, 95))
	st.PromptTokensTurn1Mean, st.PromptTokensLaterMean = Mean(prompt1), Mean(promptN)
	st.TTFTLongP50, st.TTFTLongP95, st.LongTurns = duration(Percentile(ttftLong, 50)), duration(Percentile(ttftLong, 95)), len(ttftLong)

	var turns, span []float64
	var total sessionTime
	for _, id := range order {
		ss := byID[id]
		tm := timeOf(ss.turns)
		total.add(tm)
		turns = append(turns, float64(ss.ok))
		span = append(span, float64(tm.duration))
		if ss.failed != client.OK {
			st.SessionsFailed++
			st.Failures.add(ss.failed)
		}
	}
	slices.Sort(span)
	st.Sessions = len(order)
	total.shares(&st)
	st.TurnsMean = Mean(turns)
	st.DurationP50, st.DurationP95 = duration(Percentile(span, 50)), duration(Percentile(span, 95))
	return st
}

// sessionColumns are the multi-turn figures, files only: empty (and 0
// sessions) when the run had no sessions. The console prints them as one
// line per level (SessionNotes).
func sessionColumns() []Column {
	ms := func(name, def string, f func(*SessionStats) time.Duration) Column {
		return msColumn(name, def, NoTable, "", "", func(s *LevelStats) Value { return millis(f(&s.Session)) })
	}
	mean := func(name, unit, def string, f func(*SessionStats) float64) Column {
		return Column{Name: name, Unit: unit, Def: def, Out: InFiles, Decimals: tpsDecimals, PeopleDecimals: 1,
			Value: func(s *LevelStats) Value { return number(f(&s.Session)) }}
	}
	frac := func(name, def string, f func(*SessionStats) float64) Column {
		c := mean(name, "fraction", def, f)
		c.Decimals, c.PeopleDecimals = fracDecimals, 2
		return c
	}
	return []Column{
		ms("ttft_turn1_p50_ms", "TTFT of sessions' first turns, p50", func(s *SessionStats) time.Duration { return s.TTFTTurn1P50 }),
		ms("ttft_turn1_p95_ms", "TTFT of sessions' first turns, p95", func(s *SessionStats) time.Duration { return s.TTFTTurn1P95 }),
		ms("ttft_later_p50_ms", "TTFT of sessions' later turns (2 on), p50", func(s *SessionStats) time.Duration { return s.TTFTLaterP50 }),
		ms("ttft_later_p95_ms", "TTFT of sessions' later turns, p95", func(s *SessionStats) time.Duration { return s.TTFTLaterP95 }),
		mean("prompt_tokens_turn1_mean", "tokens", "usage prompt_tokens of first turns, mean", func(s *SessionStats) float64 { return s.PromptTokensTurn1Mean }),
		mean("prompt_tokens_later_mean", "tokens", "usage prompt_tokens of later turns, mean", func(s *SessionStats) float64 { return s.PromptTokensLaterMean }),
		countColumn("sessions", "sessions", "measured sessions (0 without `--turns`/`--multi-turn`)", func(s *LevelStats) int { return s.Session.Sessions }),
		countColumn("sessions_failed", "sessions", "sessions ended by a failed turn", func(s *LevelStats) int { return s.Session.SessionsFailed }),
		textColumn("session_failures", "the failed turns' classes, `timeout=1 http_5xx=2`", func(s *LevelStats) string { return s.Session.Failures.String() }),
		mean("session_turns_mean", "turns", "successful turns per session, mean", func(s *SessionStats) float64 { return s.TurnsMean }),
		ms("session_duration_p50_ms", "session span (last End − first Start, think time included), p50", func(s *SessionStats) time.Duration { return s.DurationP50 }),
		ms("session_duration_p95_ms", "session span, p95", func(s *SessionStats) time.Duration { return s.DurationP95 }),
		frac("session_server_share", "share of session time with a turn in flight", func(s *SessionStats) float64 { return s.ServerShare }),
		frac("session_tool_share", "share idle before a turn sent after a tool wait", func(s *SessionStats) float64 { return s.ToolShare }),
		frac("session_think_share", "the same, after a think time", func(s *SessionStats) float64 { return s.PauseShare }),
		ms("ttft_long_prefix_p50_ms", "TTFT of turns ≥ 80% history, p50", func(s *SessionStats) time.Duration { return s.TTFTLongP50 }),
		ms("ttft_long_prefix_p95_ms", "the same, p95", func(s *SessionStats) time.Duration { return s.TTFTLongP95 }),
		countColumn("long_prefix_turns", "turns", "successful turns ≥ 80% history", func(s *LevelStats) int { return s.Session.LongTurns }),
	}
}

// SessionNotes are the console's per-turn lines, one per level with
// sessions: what the history cost or saved, with the server's prefix-cache
// hit rate beside it when it was scraped.
func SessionNotes(stats []LevelStats) []string {
	var notes []string
	for _, s := range stats {
		st := &s.Session
		if st.Sessions == 0 {
			continue
		}
		line := fmt.Sprintf("%s: later turns: TTFT p50 %s ms vs turn 1 %s ms (prompt %s vs %s tokens)",
			LevelName(s), Num(Ms(st.TTFTLaterP50), 1), Num(Ms(st.TTFTTurn1P50), 1),
			Num(st.PromptTokensLaterMean, 0), Num(st.PromptTokensTurn1Mean, 0))
		if s.Server.Scraped && !math.IsNaN(s.Server.PrefixHitRate) {
			line += fmt.Sprintf(", server prefix hits %.1f%%", 100*s.Server.PrefixHitRate)
		}
		if st.LongTurns > 0 {
			line += fmt.Sprintf("; ≥80%% history: TTFT p50 %s ms (%d turns)", Num(Ms(st.TTFTLongP50), 1), st.LongTurns)
		}
		line += fmt.Sprintf("; %d sessions, %s turns each, %d failed", st.Sessions, Num(st.TurnsMean, 1), st.SessionsFailed)
		if st.ToolShare > 0 {
			line += fmt.Sprintf("; time on server %.0f%%, tools %.0f%%, think %.0f%%", 100*st.ServerShare, 100*st.ToolShare, 100*st.PauseShare)
		}
		if f := st.Failures.String(); f != "" {
			line += " (" + f + ")"
		}
		notes = append(notes, line)
	}
	return notes
}
