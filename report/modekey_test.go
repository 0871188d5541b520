package report

import (
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/sweep"
)

// A rate answer carries its aggregate output in summary.json, as the
// sentence quotes it (recommended_aggregate_output_tps was null for every
// open-loop answer, set only when the answer had a C).
func TestRateAnswerCarriesItsOutputTPS(t *testing.T) {
	s := Summarize(openLevel(10, 30, constant(0), constant(200*msec)), Settings{})
	stats := []LevelStats{s}
	j := NewRecommendationJSON(Recommend(stats, SLO{TTFTP95: time.Second}), stats)
	if j.RecommendedRate == nil || *j.RecommendedRate != 10 {
		t.Fatalf("recommended_rate %v, want 10", j.RecommendedRate)
	}
	if j.RecommendedOutputTPS == nil || *j.RecommendedOutputTPS != *rounded(s.AggregateOutputTPS, tpsDecimals) || !(*j.RecommendedOutputTPS > 0) {
		t.Errorf("recommended_aggregate_output_tps %v, want the level's %v", j.RecommendedOutputTPS, s.AggregateOutputTPS)
	}
}

// A capped open loop is bounded: it shows its C column (the cap) and its
// waits for a slot are not the client falling behind; an uncapped one
// shows no C, and a dispatch delay past the limit flags it.
func TestOpenLoopBoundByItsCap(t *testing.T) {
	late := func(i int) time.Duration { return 2 * DispatchDelayLimit }
	for _, c := range []int{0, 4} {
		l := openLevel(10, 30, late, constant(200*msec))
		l.Concurrency = c
		for i := range l.Records {
			l.Records[i].Concurrency = c
		}
		s := Summarize(l, Settings{})
		if got, want := s.Key().Unbounded(), c == 0; got != want {
			t.Errorf("C=%d: Unbounded %v, want %v", c, got, want)
		}
		if got, want := anyConcurrency([]LevelStats{s}), c > 0; got != want {
			t.Errorf("C=%d: C column shown %v, want %v", c, got, want)
		}
		limited, why := clientLimited(&s)
		if flagged := strings.Contains(why, "dispatch delay"); flagged != (c == 0) {
			t.Errorf("C=%d: client-limited %v (%q), want the dispatch delay flagged only without a cap", c, limited, why)
		}
	}
	closed := Summarize(level(2, closedLoop(2, 5, 0, 100*msec, 100*msec, 10, 5)...), Settings{})
	if closed.Key().Unbounded() || !anyConcurrency([]LevelStats{closed}) {
		t.Errorf("closed loop: Unbounded %v, C column %v", closed.Key().Unbounded(), anyConcurrency([]LevelStats{closed}))
	}
}

// The closing paragraph's caution names the client-limited levels in their
// mode's words: the open loop measured its own delay ("was", "were"), the
// closed loops' evidence is a possibility ("may have been"), listed as
// "C=2,4"; one level is "its", several "their".
func TestCautionInItsModesWords(t *testing.T) {
	open := func(mode string, load float64, limited bool) LevelStats {
		return LevelStats{Mode: mode, Rate: load, RequestsOK: 10, OfferedRPS: load, AchievedRPS: load,
			AggregateOutputTPS: 30 * load, ClientLimited: limited}
	}
	closed := func(mode string, c int, limited bool) LevelStats {
		return LevelStats{Mode: mode, Concurrency: c, RequestsOK: 10, AggregateOutputTPS: 30 * float64(c), ClientLimited: limited}
	}
	const tail = " figures may describe the load generator, not the server."
	for _, tc := range []struct {
		stats []LevelStats
		want  string
	}{
		{[]LevelStats{open(sweep.RateMode, 8, false), open(sweep.RateMode, 16, true)}, "Caution: rate=16/s was client-limited; its" + tail},
		{[]LevelStats{open(sweep.RateMode, 8, true), open(sweep.RateMode, 16, true)}, "Caution: rate=8/s, rate=16/s were client-limited; their" + tail},
		{[]LevelStats{open(sweep.ReplayMode, 2, true)}, "Caution: speed=2× was client-limited; its" + tail},
		{[]LevelStats{closed(sweep.SessionsMode, 2, true), closed(sweep.SessionsMode, 4, true)}, "Caution: C=2,4 may have been client-limited; their" + tail},
	} {
		if s := Recommend(tc.stats, SLO{}).Sentence(tc.stats); !strings.HasSuffix(s, tc.want) {
			t.Errorf("sentence %q\nwant it to end %q", s, tc.want)
		}
	}
}

// The console's footnote of a flagged level is worded by its mode, as the
// closing caution is: a closed loop's "may have been", an open loop's
// measured "was", each with its evidence.
func TestClientLimitedNoteInItsModesWords(t *testing.T) {
	for _, tc := range []struct {
		s    LevelStats
		want string
	}{
		{LevelStats{Mode: sweep.ClosedMode, Concurrency: 8, Repeat: 1}, "C=8 rep 2 may have been client-limited: why"},
		{LevelStats{Mode: sweep.SessionsMode, Concurrency: 4}, "C=4 may have been client-limited: why"},
		{LevelStats{Mode: sweep.RateMode, Rate: 16}, "rate=16/s was client-limited: why"},
		{LevelStats{Mode: sweep.ReplayMode, Rate: 2}, "speed=2× was client-limited: why"},
	} {
		tc.s.ClientLimited, tc.s.ClientLimitedReason = true, "why"
		if got := ClientLimitedNote(tc.s); got != tc.want {
			t.Errorf("note %q, want %q", got, tc.want)
		}
	}
}

// summary.json's answer fields are the answer level's columns: a capped
// rate answer's recommended_concurrency is its cap (levels.csv's
// concurrency) beside recommended_rate, its rate; an uncapped one has no
// concurrency (null), as docs/metrics.md (summary.json) says.
func TestRateAnswerFieldsAreItsLevelsColumns(t *testing.T) {
	for _, cap := range []int{4, 0} {
		var stats []LevelStats
		for _, rate := range []float64{2, 4} {
			l := openLevel(rate, 30, constant(0), constant(200*msec))
			l.Concurrency = cap
			for i := range l.Records {
				l.Records[i].Concurrency = cap
			}
			stats = append(stats, Summarize(l, Settings{}))
		}
		j := NewRecommendationJSON(Recommend(stats, SLO{TTFTP95: time.Second}), stats)
		if j.RecommendedRate == nil || *j.RecommendedRate != 4 {
			t.Fatalf("cap %d: recommended_rate %v, want 4", cap, j.RecommendedRate)
		}
		switch c := j.RecommendedConcurrency; {
		case cap == 0 && c != nil:
			t.Errorf("uncapped: recommended_concurrency %d, want null", *c)
		case cap > 0 && (c == nil || *c != cap):
			t.Errorf("cap %d: recommended_concurrency %v, want the cap", cap, c)
		}
	}
}
