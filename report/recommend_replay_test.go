package report

import (
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/sweep"
)

// replayStats are three replay levels, speeds 1, 2 and 4 of a trace of
// about 12 req/s: decode p10 80, 60 and 30 tok/s, aggregates 100, 190 and
// 200 tok/s (doubling 2× adds 5%: the knee), all stable.
func replayStats() []LevelStats {
	var stats []LevelStats
	for _, f := range []struct{ speed, offered, decode, agg float64 }{{1, 12.13, 80, 100}, {2, 24.31, 60, 190}, {4, 48.52, 30, 200}} {
		s := lvl(0, f.decode, f.agg, 100*time.Millisecond, 0)
		s.Mode, s.Rate, s.OfferedRPS, s.AchievedRPS = sweep.ReplayMode, f.speed, f.offered, f.offered
		stats = append(stats, s)
	}
	return stats
}

// A replay's closing paragraph and tables speak of speeds in the replay
// mode's words (sweep.Words: "speed 2× (offered 24.3 req/s)"), never of
// a speed as "2 req/s"; the load column's heading is "speed×", not
// "rate/s"; a rate run's words stay its own.
func TestReplayWords(t *testing.T) {
	stats := replayStats()
	got := Recommend(stats, SLO{DecodeTPS: 50}).Sentence(stats)
	want := "This server sustains speed 2× (offered 24.3 req/s, open loop) with decode ≥ 50 tok/s (p10), delivering 190 output tok/s in aggregate. " +
		"At speed 4× (offered 48.5 req/s) the SLO fails: decode_tps_p10 30.0 < 50. " +
		"Aggregate throughput saturates beyond speed 2× (offered 24.3 req/s): doubling it adds < 10%. " +
		"The highest stable level was speed 4× (offered 48.5 req/s)."
	if got != want {
		t.Errorf("sentence\n got %q\nwant %q", got, want)
	}
	for _, bad := range []string{" 1 req/s", " 2 req/s", " 4 req/s", " rate "} {
		if strings.Contains(got, bad) {
			t.Errorf("sentence %q has %q", got, bad)
		}
	}
	none := Recommend(stats, SLO{DecodeTPS: 90}).Sentence(stats)
	if !strings.HasPrefix(none, "No replay speed meets the SLO (decode ≥ 90 tok/s (p10)): at speed 1× (offered 12.1 req/s) decode_tps_p10 80.0 < 90.") {
		t.Errorf("no speed passes: %q", none)
	}
	growing := stats[:2]
	growing[1].AggregateOutputTPS = 400
	if s := Recommend(growing, SLO{}).Sentence(growing); !strings.HasPrefix(s, "Aggregate throughput was still growing at speed 2× (offered 24.3 req/s) (no knee within the replay speeds run).") {
		t.Errorf("no knee: %q", s)
	}
	console := consoleOf(t, replayStats()...)
	if !strings.Contains(console, "speed×") || strings.Contains(console, "rate/s") {
		t.Errorf("the console's load column is not headed speed×:\n%s", console)
	}

	rate := replayStats()
	for i := range rate {
		rate[i].Mode, rate[i].Rate = sweep.RateMode, rate[i].OfferedRPS
	}
	s := Recommend(rate, SLO{DecodeTPS: 50}).Sentence(rate)
	if !strings.Contains(s, "At 48.52 req/s offered (nominal 48.52) the SLO fails") || !strings.Contains(s, "The highest stable level was 48.52 req/s offered (nominal 48.52).") {
		t.Errorf("a rate run's sentence: %q", s)
	}
	if c := consoleOf(t, rate...); !strings.Contains(c, "rate/s") || strings.Contains(c, "speed×") {
		t.Errorf("the rate run's load column is not headed rate/s:\n%s", c)
	}
}
