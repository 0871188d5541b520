package report

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/sweep"
)

// Latency counts from the scheduled instant: a request that waited 40 ms
// in the client and 100 ms for its first token has a TTFT of 140 ms; the
// wait is its dispatch delay; TPOT is (End − FirstToken) / (U − 1).
func TestOpenLoopLatencyFromSched(t *testing.T) {
	s := Summarize(openLevel(10, 50, constant(40*msec), constant(100*msec)), Settings{})
	if s.TTFTP50 != 140*msec || s.TTFTP99 != 140*msec {
		t.Errorf("TTFT p50 %v p99 %v, want 140ms (40ms wait + 100ms)", s.TTFTP50, s.TTFTP99)
	}
	if s.E2ELatencyP50 != 230*msec { // 40 + 100 + 9 × 10
		t.Errorf("e2e latency p50 %v, want 230ms", s.E2ELatencyP50)
	}
	if s.DispatchDelayP50 != 40*msec || s.DispatchDelayP99 != 40*msec || s.DispatchDelayMax != 40*msec {
		t.Errorf("dispatch delay %v/%v/%v, want 40ms", s.DispatchDelayP50, s.DispatchDelayP99, s.DispatchDelayMax)
	}
	if s.TPOTP50 != 10*msec || s.TPOTP99 != 10*msec {
		t.Errorf("TPOT %v/%v, want 10ms", s.TPOTP50, s.TPOTP99)
	}
	if math.Abs(s.OfferedRPS-10) > 1e-9 || math.Abs(s.AchievedRPS-10) > 1e-9 {
		t.Errorf("offered %v achieved %v, want 10 and 10", s.OfferedRPS, s.AchievedRPS)
	}
	if s.Unstable || !strings.Contains(s.ClientLimitedReason, "dispatch delay p99 40.0 ms") {
		t.Errorf("unstable %v (%s); client-limited %q: want stable, and limited by the 40ms dispatch delay", s.Unstable, s.UnstableReason, s.ClientLimitedReason)
	}
	// A closed loop is unchanged: no Sched, latency from Start, no
	// dispatch delay, no stability verdict.
	closed := level(1, stream(0, 100*msec, 10*msec, 10), stream(190*msec, 100*msec, 10*msec, 10))
	c := Summarize(closed, Settings{})
	if c.TTFTP50 != 100*msec || c.DispatchDelayP99 != NoSample || c.Unstable {
		t.Errorf("closed loop: TTFT %v, dispatch %v, unstable %v", c.TTFTP50, c.DispatchDelayP99, c.Unstable)
	}
}

// Stability: a level whose TTFT climbs across it, or whose completions
// fall behind its arrivals, is unstable; one that keeps up is not.
func TestOpenLoopStability(t *testing.T) {
	flat := Summarize(openLevel(10, 100, constant(0), constant(100*msec)), Settings{})
	if flat.Unstable || flat.TTFTRise != 0 {
		t.Errorf("flat TTFT: unstable %v (%s), rise %v", flat.Unstable, flat.UnstableReason, flat.TTFTRise)
	}
	// A queue that grows by 20 ms per arrival: TTFT rises 1.98 s over the
	// level, and completions (one per 120 ms) fall behind arrivals (one per
	// 100 ms).
	climb := Summarize(openLevel(10, 100, constant(0), func(i int) time.Duration { return 100*msec + time.Duration(i)*20*msec }), Settings{})
	if !climb.Unstable || climb.TTFTRise != 1980*msec {
		t.Errorf("climbing TTFT: unstable %v, rise %v (want true, 1.98s)", climb.Unstable, climb.TTFTRise)
	}
	for _, want := range []string{"TTFT rose 1980ms", "completions 8.33/s < arrivals 10/s"} {
		if !strings.Contains(climb.UnstableReason, want) {
			t.Errorf("reason %q lacks %q", climb.UnstableReason, want)
		}
	}
	if why := Untrusted(climb); !strings.Contains(why, "unstable") {
		t.Errorf("an unstable level is trusted: %q", why)
	}
	// A small rise (below TTFTRiseMin) is noise, not a queue.
	small := Summarize(openLevel(10, 100, constant(0), func(i int) time.Duration { return 100*msec + time.Duration(i)*500*time.Microsecond }), Settings{})
	if small.Unstable {
		t.Errorf("a 50ms rise flagged unstable: %s", small.UnstableReason)
	}
}

// Goodput: with a known share of requests over the TTFT bound, the ratio
// is that share, and goodput_rps is that share of achieved_rps. Failed
// requests count against it.
func TestGoodput(t *testing.T) {
	l := openLevel(10, 40, constant(0), func(i int) time.Duration {
		if i%4 == 3 {
			return 1500 * msec // one in four breaks TTFT ≤ 1s
		}
		return 200 * msec
	})
	l.Records[0] = with(l.Records[0], func(r *client.Record) { r.ErrorClass, r.Status = client.HTTP5xx, 500 })
	s := Summarize(l, Settings{})
	v := CheckSLO(s, SLO{TTFTP95: time.Second})
	// 40 finished: 10 too slow, 1 failed (request 0, not a slow one).
	if want := 29.0 / 40; math.Abs(v.GoodputRatio-want) > 1e-12 {
		t.Errorf("goodput ratio %v, want %v", v.GoodputRatio, want)
	}
	if math.Abs(v.GoodputRPS-v.GoodputRatio*s.AchievedRPS) > 1e-12 || !(s.AchievedRPS > 0) {
		t.Errorf("goodput %v/s, achieved %v/s, ratio %v", v.GoodputRPS, s.AchievedRPS, v.GoodputRatio)
	}
	// A decode bound every request meets changes nothing; one none meets
	// leaves no goodput.
	if v2 := CheckSLO(s, SLO{TTFTP95: time.Second, DecodeTPS: 50}); v2.GoodputRatio != v.GoodputRatio {
		t.Errorf("decode ≥ 50 (all at 100 tok/s): ratio %v", v2.GoodputRatio)
	}
	if v3 := CheckSLO(s, SLO{DecodeTPS: 200}); v3.GoodputRatio != 0 {
		t.Errorf("decode ≥ 200 (none): ratio %v", v3.GoodputRatio)
	}
	// The files write it with the verdict, and re-read it.
	s.SLO = &v
	lj := NewLevelJSON(s)
	if lj.GoodputRatio == nil || *lj.GoodputRatio != 0.725 || lj.Rate != 10 {
		t.Errorf("summary.json goodput_ratio %v, rate %v", lj.GoodputRatio, lj.Rate)
	}
}

// A rate run's tables and names speak of rates, not of C: the Aggregate
// header says "at the offered rate", a level is "rate=10/s".
func TestRateRunWords(t *testing.T) {
	s := Summarize(openLevel(10, 30, constant(0), constant(200*msec)), Settings{})
	var title string
	for _, lt := range LevelTables([]LevelStats{s}) {
		if lt.Table == AggregateTable {
			title = lt.Title
		}
	}
	if !strings.Contains(title, "at the offered rate") || strings.Contains(title, "all C in flight") {
		t.Errorf("Aggregate title %q", title)
	}
	if s.Mode != sweep.RateMode || LevelName(s) != "rate=10/s" {
		t.Errorf("mode %q, name %q", s.Mode, LevelName(s))
	}
}

// The closing sentence of a rate run quotes the recommended rate as its
// plan offered it, the nominal rate in brackets.
func TestRateSentenceQuotesTheOfferedRate(t *testing.T) {
	s := Summarize(openLevel(10, 30, constant(0), constant(200*msec)), Settings{})
	s.OfferedRPS = 9.8765 // as a Poisson plan might offer it
	stats := []LevelStats{s}
	rec := Recommend(stats, SLO{TTFTP95: time.Second})
	if rec.Recommended != (sweep.LevelKey{Mode: sweep.RateMode, Load: 10}) || rec.RecommendedOffered != 9.8765 {
		t.Fatalf("recommended %v offered %v, want rate=10/s offered 9.8765", rec.Recommended, rec.RecommendedOffered)
	}
	want := "This server sustains 9.877 req/s offered (nominal 10) with"
	if got := rec.Sentence(stats); !strings.HasPrefix(got, want) {
		t.Errorf("sentence %q\nwant prefix %q", got, want)
	}
	rec.RecommendedOffered = 0 // a saved run without the figure: the nominal rate alone
	if got := rec.Sentence(stats); !strings.HasPrefix(got, "This server sustains 10 req/s (nominal) with") {
		t.Errorf("sentence without an offered rate %q", got)
	}
}
