package replay

import (
	"strings"
	"testing"

	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
	"github.com/toksweep/toksweep/workload/trace"
)

// The speed search on a trace of mean rate 10 req/s and a server of
// maximum throughput 25 req/s: it starts at speed 1, ramps ×4 to speed 4
// (40 req/s offered, 25 achieved: unstable, so the ceiling is speed
// 2.5/(1 − ShortfallMax)), and is judged on the levels' rates turned into
// speeds; the answer is in speeds with the offered rate.
func TestSpeedsSearch(t *testing.T) {
	const mean, x = 10.0, 25.0
	var stats []report.LevelStats
	p := NewSpeeds(&stats, report.SLO{}, 0, mean, 1000)
	var speeds []float64
	for s, ok := p.Next(); ok && len(speeds) < 20; s, ok = p.Next() {
		speeds = append(speeds, s)
		offered := s * mean
		achieved := min(offered, x)
		stats = append(stats, report.LevelStats{Mode: sweep.ReplayMode, Rate: s, RequestsOK: 10, OfferedRPS: offered, AchievedRPS: achieved,
			Unstable: achieved < (1-report.ShortfallMax)*offered})
	}
	if len(speeds) < 3 || speeds[0] != 1 || speeds[1] != 4 {
		t.Fatalf("speeds tried %v: want 1, 4, then a bisection", speeds)
	}
	for _, s := range speeds[2:] {
		if !(s > 1 && s < 4) || s*mean > x/(1-report.ShortfallMax) {
			t.Errorf("speed %g tried after the ramp: want within (1, 4) and at most the ceiling %.3g×", s, x/(1-report.ShortfallMax)/mean)
		}
	}
	got := p.Sentence()
	if !strings.HasPrefix(got, "--replay-speed auto: the highest stable speed meeting the SLO is ") || !strings.Contains(got, "× (") || !strings.Contains(got, "req/s offered)") {
		t.Errorf("sentence %q", got)
	}
	t.Logf("tried %v: %s", speeds, got)
}

// The closing line names each speed once, in ascending order, however many
// times it ran (--repeat, or a search that came back to it). Before, a
// --repeat 2 run read "1× = 20 req/s, 1× = 20 req/s, 2× = 40 req/s, 2× = …".
func TestReplaySpeedsSentenceNamesEachSpeedOnce(t *testing.T) {
	t.Parallel()
	r := &Settings{File: "t.jsonl", sum: trace.Summary{MeanRate: 20}}
	var stats []report.LevelStats
	for _, speed := range []float64{2, 1, 1, 2, 0.5} {
		stats = append(stats, report.LevelStats{Rate: speed})
	}
	want := "Replay speeds (offered rate = speed × the trace's mean rate, 20 req/s): 0.5× = 10 req/s, 1× = 20 req/s, 2× = 40 req/s."
	if got := r.speedsSentence(stats); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
