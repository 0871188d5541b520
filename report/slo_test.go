package report

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// lvl is a hand-made level for the SLO tables.
func lvl(c int, decodeP10, aggregate float64, ttftP95 time.Duration, failed int) LevelStats {
	return LevelStats{
		Concurrency: c, RequestsOK: 10, RequestsFailed: failed,
		DecodeTPSP10: decodeP10, E2ETPSP10: decodeP10 * 0.9, AggregateOutputTPS: aggregate, TTFTP95: ttftP95,
	}
}

func TestCheckSLO(t *testing.T) {
	noSLO := SLO{}
	cases := []struct {
		name   string
		s      LevelStats
		o      SLO
		pass   bool
		failed []string
	}{
		{"decode passes at the threshold", lvl(4, 40, 0, time.Second, 0), SLO{DecodeTPS: 40}, true, nil},
		{"decode fails", lvl(4, 39.96, 0, time.Second, 0), SLO{DecodeTPS: 40}, false, []string{"decode_tps_p10 40.0 < 40"}},
		{"e2e fails", lvl(4, 40, 0, time.Second, 0), SLO{E2ETPS: 37}, false, []string{"e2e_tps_p10 36.0 < 37"}},
		{"ttft fails", lvl(4, 40, 0, 2500*time.Millisecond, 0), SLO{TTFTP95: 2 * time.Second}, false, []string{"ttft_p95 2.5s > 2s"}},
		{"error rate passes at 0", lvl(4, 40, 0, time.Second, 0), SLO{ErrorRate: new(0.0)}, true, nil},
		{"error rate fails", lvl(4, 40, 0, time.Second, 1), SLO{ErrorRate: new(0.05)}, false, []string{"error rate 9.1% > 5%"}},
		{"no samples fail", LevelStats{Concurrency: 4, DecodeTPSP10: math.NaN(), TTFTP95: NoSample}, SLO{DecodeTPS: 1, TTFTP95: time.Second}, false,
			[]string{"decode_tps_p10 none < 1", "ttft_p95 none > 1s"}},
		{"two criteria fail", lvl(4, 10, 0, 3*time.Second, 0), SLO{DecodeTPS: 40, TTFTP95: 2 * time.Second}, false,
			[]string{"decode_tps_p10 10.0 < 40", "ttft_p95 3s > 2s"}},
		{"no SLO passes", lvl(4, 1, 0, time.Hour, 5), noSLO, true, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := CheckSLO(tc.s, tc.o)
			if r.Pass != tc.pass || !slices.Equal(r.Failed, tc.failed) {
				t.Errorf("got pass=%v %q, want pass=%v %q", r.Pass, r.Failed, tc.pass, tc.failed)
			}
		})
	}
}

func TestRecommend(t *testing.T) {
	// A replica that saturates at 16: per-user decode falls with load.
	stats := []LevelStats{
		lvl(1, 80, 80, 100*time.Millisecond, 0),
		lvl(2, 78, 156, 110*time.Millisecond, 0),
		lvl(4, 74, 296, 120*time.Millisecond, 0),
		lvl(8, 66, 528, 150*time.Millisecond, 0),
		lvl(16, 52, 832, 300*time.Millisecond, 0),
		lvl(32, 28, 896, 900*time.Millisecond, 0),
		lvl(64, 14, 900, 3*time.Second, 0),
	}
	o := SLO{DecodeTPS: 40, TTFTP95: 2 * time.Second}
	r := Recommend(stats, o)
	if r.Recommended.Concurrency != 16 || r.RecommendedTPS != 832 || r.FirstFail.Concurrency != 32 || r.Knee.Concurrency != 16 {
		t.Fatalf("got %+v; want recommended 16 (832 tok/s), first fail 32, knee 16", r)
	}
	if !slices.Equal(r.FirstFailWhy, []string{"decode_tps_p10 28.0 < 40"}) {
		t.Errorf("first fail why = %q", r.FirstFailWhy)
	}
	stats[4].DecodeTPSP50, stats[4].E2ETPSP50 = 61.26, 48.04
	want := "This server serves 16 concurrent users with decode ≥ 40 tok/s (p10), TTFT p95 ≤ 2s: " +
		"there each user gets 61.3 tok/s decode and 48.0 tok/s end to end (p50) with a TTFT p95 of 300 ms, and the server delivers 832 output tok/s in aggregate. " +
		"At 32 concurrent users the SLO fails: decode_tps_p10 28.0 < 40. Aggregate throughput saturates beyond 16 concurrent requests (doubling adds < 10%), the recommended level."
	if got := r.Sentence(stats); got != want {
		t.Errorf("sentence:\n got %s\nwant %s", got, want)
	}
}

// Without an SLO the closing paragraph still says what one user gets at the
// knee; the figures are the means over the level's repeats.
func TestSentenceStatesPerUserFiguresAtTheKnee(t *testing.T) {
	stats := []LevelStats{
		lvl(8, 60, 500, 200*time.Millisecond, 0),
		lvl(16, 50, 800, 400*time.Millisecond, 0),
		lvl(16, 50, 820, 1800*time.Millisecond, 0),
		lvl(32, 30, 850, 2*time.Second, 0),
	}
	stats[2].Repeat = 1
	stats[1].DecodeTPSP50, stats[1].E2ETPSP50 = 54, 40
	stats[2].DecodeTPSP50, stats[2].E2ETPSP50 = 56, 42
	want := "Aggregate throughput saturates beyond 16 concurrent requests (doubling adds < 10%): " +
		"there each user gets 55.0 tok/s decode and 41.0 tok/s end to end (p50) with a TTFT p95 of 1.10 s, and the server delivers 810 output tok/s in aggregate."
	if got := Recommend(stats, SLO{}).Sentence(stats); got != want {
		t.Errorf("sentence:\n got %s\nwant %s", got, want)
	}
}

func TestRecommendEdgeCases(t *testing.T) {
	growing := []LevelStats{lvl(1, 80, 80, 0, 0), lvl(2, 79, 158, 0, 0), lvl(4, 78, 310, 0, 0)}
	cases := []struct {
		name            string
		stats           []LevelStats
		o               SLO
		rec, fail, knee int
		sentenceHas     string
	}{
		{"no SLO: knee only, still growing", growing, SLO{}, 0, 0, 0, "still growing at 4"},
		{"all pass", growing, SLO{DecodeTPS: 10}, 4, 0, 0, "the limit is above 4"},
		{"none pass", growing, SLO{DecodeTPS: 100}, 0, 1, 0, "No level meets the SLO"},
		{"unsorted input, a pass above a fail is not recommended",
			[]LevelStats{lvl(4, 50, 300, 0, 0), lvl(1, 80, 80, 0, 0), lvl(2, 30, 150, 0, 0)},
			SLO{DecodeTPS: 40}, 1, 2, 0, "serves 1 concurrent user with"},
		{"knee on a non-doubling list uses the nearest level at or above 2c",
			[]LevelStats{lvl(1, 80, 100, 0, 0), lvl(3, 80, 250, 0, 0), lvl(5, 80, 260, 0, 0), lvl(7, 80, 270, 0, 0)},
			SLO{}, 0, 0, 3, "saturates beyond 3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Recommend(tc.stats, tc.o)
			if r.Recommended.Concurrency != tc.rec || r.FirstFail.Concurrency != tc.fail || r.Knee.Concurrency != tc.knee {
				t.Errorf("got rec=%d fail=%d knee=%d, want %d %d %d", r.Recommended.Concurrency, r.FirstFail.Concurrency, r.Knee.Concurrency, tc.rec, tc.fail, tc.knee)
			}
			if s := r.Sentence(tc.stats); !strings.Contains(s, tc.sentenceHas) {
				t.Errorf("sentence %q lacks %q", s, tc.sentenceHas)
			}
		})
	}
}

func TestRecommendRepeatsMustAllPass(t *testing.T) {
	stats := []LevelStats{lvl(1, 80, 80, 0, 0), lvl(2, 50, 150, 0, 0), lvl(2, 35, 140, 0, 0)}
	stats[2].Repeat = 1
	r := Recommend(stats, SLO{DecodeTPS: 40})
	if r.Recommended.Concurrency != 1 || r.FirstFail.Concurrency != 2 {
		t.Errorf("got rec=%d fail=%d; a level passes only if every repeat passes", r.Recommended.Concurrency, r.FirstFail.Concurrency)
	}
}

func TestConsoleRepeatSpreadAndSLOColumn(t *testing.T) {
	a, b, c := lvl(4, 40, 300, time.Second, 0), lvl(4, 44, 330, time.Second, 0), lvl(4, 42, 310, time.Second, 0)
	a.DecodeTPSP50, b.DecodeTPSP50, c.DecodeTPSP50 = 50, 55, 52
	a.TTFTP50, b.TTFTP50, c.TTFTP50 = 100*time.Millisecond, 120*time.Millisecond, 110*time.Millisecond
	b.Repeat, c.Repeat = 1, 2
	pass := CheckSLO(a, SLO{DecodeTPS: 41})
	a.SLO = &pass
	var sb strings.Builder
	if err := WriteConsole(&sb, []LevelStats{a, b, c}); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	for _, want := range []string{
		spreadTitle,
		"4     3         50.0–55.0    9.6%  100.0–120.0   18.2%   300.0–330.0    9.7%",
		"FAIL: decode_tps_p10 40.0 < 41",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("console lacks %q:\n%s", want, out)
		}
	}
}

func TestRecommendationNamesClientLimitedLevels(t *testing.T) {
	stats := []LevelStats{lvl(1, 80, 80, 0, 0), lvl(2, 79, 158, 0, 0), lvl(4, 78, 160, 0, 0)}
	stats[2].ClientLimited = true
	s := Recommend(stats, SLO{DecodeTPS: 40}).Sentence(stats)
	if !strings.HasSuffix(s, "Caution: C=4 may have been client-limited; its figures may describe the load generator, not the server.") {
		t.Errorf("sentence %q does not warn about C=4", s)
	}
	stats[1].ClientLimited = true
	s = Recommend(stats, SLO{DecodeTPS: 40}).Sentence(stats)
	if !strings.HasSuffix(s, "Caution: C=2,4 may have been client-limited; their figures may describe the load generator, not the server.") {
		t.Errorf("sentence %q does not warn about C=2 and C=4", s)
	}
}

func TestRecommendationWithoutADoubling(t *testing.T) {
	one := []LevelStats{lvl(1, 80, 80, 250*time.Millisecond, 0)}
	one[0].DecodeTPSP50, one[0].E2ETPSP50 = 81, 70
	want := "One level cannot show a knee (run levels a doubling apart, e.g. --levels 1,2,4,8, to find one); " +
		"at 1 concurrent request each user gets 81.0 tok/s decode and 70.0 tok/s end to end (p50) with a TTFT p95 of 250 ms, and the server delivers 80 output tok/s in aggregate."
	if s := Recommend(one, SLO{}).Sentence(one); s != want {
		t.Errorf("one level:\n got %s\nwant %s", s, want)
	}
	failed := []LevelStats{lvl(1, math.NaN(), 0, NoSample, 3), lvl(2, math.NaN(), 0, NoSample, 3)}
	if s := Recommend(failed, SLO{}).Sentence(failed); !strings.HasPrefix(s, "No two levels a doubling apart delivered throughput, so no knee can be found.") {
		t.Errorf("all failed: %q claims a trend it cannot see", s)
	}
}

// The figures of a level are stated once: a knee sentence about the
// recommended level does not repeat them.
func TestSentenceStatesEachLevelsFiguresOnce(t *testing.T) {
	growing := []LevelStats{lvl(1, 80, 80, 0, 0), lvl(2, 79, 158, 0, 0), lvl(4, 78, 310, 0, 0)}
	one := []LevelStats{lvl(1, 80, 80, 0, 0)}
	for name, stats := range map[string][]LevelStats{"still growing": growing, "one level": one} {
		s := Recommend(stats, SLO{DecodeTPS: 10}).Sentence(stats)
		if n := strings.Count(s, "each user gets"); n != 1 {
			t.Errorf("%s: the figures are stated %d times: %s", name, n, s)
		}
	}
	s := Recommend(growing, SLO{DecodeTPS: 10}).Sentence(growing)
	if !strings.HasSuffix(s, "Every level run passes; the limit is above 4. Aggregate throughput was still growing at 4 concurrent requests (no knee within the levels run).") {
		t.Errorf("sentence: %s", s)
	}
}
