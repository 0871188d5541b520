package report

import (
	"strings"
	"testing"
	"time"
)

// A rate answer carries its aggregate output in summary.json, as the
// sentence quotes it (recommended_aggregate_output_tps was null for every
// open-loop answer, set only when the answer had a C).
func TestRateAnswerCarriesItsOutputTPS(t *testing.T) {
	s := Summarize(openLevel(10, 30, constant(0), constant(200*msec)))
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
		s := Summarize(l)
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
	closed := Summarize(level(2, closedLoop(2, 5, 0, 100*msec, 100*msec, 10, 5)...))
	if closed.Key().Unbounded() || !anyConcurrency([]LevelStats{closed}) {
		t.Errorf("closed loop: Unbounded %v, C column %v", closed.Key().Unbounded(), anyConcurrency([]LevelStats{closed}))
	}
}
