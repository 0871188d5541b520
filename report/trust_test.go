package report

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/sweep"
)

// errorful is the level: C=8, 64 measured requests of which 58
// failed at once and 6 streamed. The few successes make a high aggregate
// over a tiny window.
func errorful() LevelStats {
	var recs []client.Record
	for w := range 8 {
		for i := range 8 {
			start := time.Duration(i*8+w) * 10 * msec
			if w < 6 && i == 7 {
				r := stream(start, 10*msec, msec, 100)
				r.Worker = w
				recs = append(recs, r)
				continue
			}
			recs = append(recs, failed(client.HTTP5xx, w, start, start+msec))
		}
	}
	return Summarize(level(8, recs...), Settings{})
}

func TestUntrusted(t *testing.T) {
	canceledTail := closedLoop(2, 10, 0, 100*msec, 100*msec, 10, 5)
	for w := range 2 {
		c := failed(client.Canceled, w, 11*time.Second, 11500*msec)
		canceledTail = append(canceledTail, c)
	}
	// Worker 1's one request sits at the end of worker 0's long run: the
	// two overlap for 0.5 s of a 10.5 s level (5%).
	sliver := closedLoop(1, 10, 0, 100*msec, 100*msec, 10, 5)
	sliver = append(sliver, with(stream(10500*msec, 100*msec, 100*msec, 10), func(r *client.Record) { r.Worker = 1 }))
	cases := []struct {
		name string
		s    LevelStats
		want string
	}{
		{"healthy", Summarize(twoWorkerLoop(), Settings{}), ""},
		{"canceled requests are not server errors", Summarize(level(2, canceledTail...), Settings{}), ""},
		{"58 of 64 failed", errorful(), "58 of 64 requests failed (91% > 10%)"},
		{"no steady window", Summarize(level(2, stream(0, 100*msec, 100*msec, 10),
			with(stream(2*time.Second, 100*msec, 100*msec, 10), func(r *client.Record) { r.Worker = 1 })), Settings{}), "no steady window"},
		{"a sliver of a window", Summarize(level(2, sliver...), Settings{}), "steady window 0.5s is 5% of the level (< 10%)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Untrusted(tc.s); !strings.Contains(got, tc.want) || (tc.want == "") != (got == "") {
				t.Errorf("Untrusted = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestVerdictsLeaveOutUntrustedLevels: the run. C=8 failed 58 of
// 64 requests, yet its 6 successes show a high aggregate over a 0.1 s
// window; it must not make the knee ("saturates beyond 4") nor pass the SLO
// ("serves 8 users"), and the closing paragraph must say why.
func TestVerdictsLeaveOutUntrustedLevels(t *testing.T) {
	bad := errorful()
	if math.IsNaN(bad.AggregateOutputTPS) || bad.AggregateOutputTPS < 100 {
		t.Fatalf("the errorful level's aggregate is %v; the test needs a plausible one", bad.AggregateOutputTPS)
	}
	stats := []LevelStats{lvl(1, 80, 80, 0, 0), lvl(2, 79, 150, 0, 0), lvl(4, 78, bad.AggregateOutputTPS, 0, 0), bad}
	bad.DecodeTPSP10 = 80 // its few successes pass the SLO
	stats[3] = bad

	r := Recommend(stats, SLO{})
	if r.Knee.Concurrency != 0 || len(r.Excluded) != 1 || r.Excluded[0].Key.Concurrency != 8 {
		t.Errorf("knee %d, excluded %+v; want no knee, C=8 excluded", r.Knee.Concurrency, r.Excluded)
	}
	s := r.Sentence(stats)
	for _, want := range []string{"still growing at 4", "Left out of the knee and the recommendation: C=8 (58 of 64 requests failed (91% > 10%))"} {
		if !strings.Contains(s, want) {
			t.Errorf("sentence %q lacks %q", s, want)
		}
	}
	if strings.Contains(s, "saturates") {
		t.Errorf("sentence %q claims a knee from C=8", s)
	}

	r = Recommend(stats, SLO{DecodeTPS: 40})
	if r.Recommended.Concurrency != 4 || r.Unjudged.Concurrency != 8 || r.FirstFail.Concurrency != 0 {
		t.Errorf("recommended %d, unjudged %d, first fail %d; want 4, 8, 0", r.Recommended.Concurrency, r.Unjudged.Concurrency, r.FirstFail.Concurrency)
	}
	if s := r.Sentence(stats); !strings.Contains(s, "C=8 cannot bear a verdict, so the limit above 4 is not known") {
		t.Errorf("sentence %q", s)
	}
	if out := consoleOf(t, stats...); !strings.Contains(out, "warning: C=8: 58 of 64 requests failed (91% > 10%): left out of the knee and the recommendation") {
		t.Errorf("console lacks the C=8 warning:\n%s", out)
	}
	// A failure is still a failure: with an error-rate criterion C=8 fails.
	if r := Recommend(stats, SLO{ErrorRate: new(0.05)}); r.FirstFail.Concurrency != 8 || r.Recommended.Concurrency != 4 {
		t.Errorf("error-rate SLO: first fail %d, recommended %d; want 8, 4", r.FirstFail.Concurrency, r.Recommended.Concurrency)
	}
}

// TestInterruptedLevelWithoutAFinishedRequest: Ctrl-C before any measured
// request finished. There is no window, so the aggregate figures are
// undefined ("-", empty cells, null), not 0.0, and no footnote claims a
// window the in-flight column does not show.
func TestInterruptedLevelWithoutAFinishedRequest(t *testing.T) {
	l := level(4, failed(client.Canceled, 0, 0, 900*msec), failed(client.Canceled, 1, 100*msec, 900*msec),
		failed(client.Canceled, 2, 200*msec, 900*msec), failed(client.Canceled, 3, 300*msec, 900*msec))
	l.EndReason = sweep.Canceled
	s := Summarize(l, Settings{})
	got := figures(s)
	for _, col := range []string{"aggregate_output_tps", "aggregate_total_tps", "requests_per_s", "window_s", "inflight_mean"} {
		if got[col] != "" {
			t.Errorf("%s = %q, want an empty cell", col, got[col])
		}
	}
	if got["window_fallback"] != "false" || got["client_limited"] != "false" {
		t.Errorf("window_fallback %s, client_limited %s; want false, false", got["window_fallback"], got["client_limited"])
	}
	out := consoleOf(t, s)
	if strings.Contains(out, "0.0") || strings.Contains(out, "* C=4") {
		t.Errorf("console shows a figure or a window note for a level without one:\n%s", out)
	}
	if !strings.Contains(out, "warning: C=4: no request finished") {
		t.Errorf("console lacks the warning:\n%s", out)
	}
}

func TestFewSamplesNote(t *testing.T) {
	few := consoleOf(t, Summarize(twoWorkerLoop(), Settings{})) // 6 measured requests
	if !strings.Contains(few, "note: C=2: percentiles rest on 6 successful requests (< 10)") {
		t.Errorf("no few-samples note:\n%s", few)
	}
	enough := consoleOf(t, Summarize(level(2, closedLoop(2, 5, 0, 100*msec, 100*msec, 10, 5)...), Settings{}))
	if strings.Contains(enough, "percentiles rest on") {
		t.Errorf("few-samples note with 10 requests:\n%s", enough)
	}
}

// An untrusted rate level is left out by its own name, not "C=0", and
// summary.json lists it under excluded_rate by its key's rate.
func TestExcludedRateLevelIsNamedByItsKey(t *testing.T) {
	good := Summarize(openLevel(8, 40, constant(0), constant(100*msec)), Settings{})
	l := openLevel(16, 40, constant(0), constant(100*msec))
	for i := range 30 { // 30 of 40 failed
		l.Records[i] = with(l.Records[i], func(r *client.Record) { r.ErrorClass, r.Status = client.HTTP5xx, 500 })
	}
	bad := Summarize(l, Settings{})
	stats := []LevelStats{good, bad}
	r := Recommend(stats, SLO{})
	if len(r.Excluded) != 1 || r.Excluded[0].Key != bad.Key() {
		t.Fatalf("excluded %+v, want rate=16/s", r.Excluded)
	}
	if s := r.Sentence(stats); !strings.Contains(s, "Left out of the knee and the recommendation: rate=16/s (30 of 40 requests failed") || strings.Contains(s, "C=0") {
		t.Errorf("sentence %q", s)
	}
	j := NewRecommendationJSON(r, stats)
	if !slices.Equal(j.ExcludedRate, []float64{16}) || j.ExcludedConcurrency != nil {
		t.Errorf("excluded_rate %v, excluded_concurrency %v", j.ExcludedRate, j.ExcludedConcurrency)
	}
}
