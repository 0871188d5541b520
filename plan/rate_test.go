package plan

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// rateLevel is a hand-made open-loop level at nominal rate r: it offered
// and achieved the given rates, held inflight requests on average, and
// passed the SLO or not.
func rateLevel(r, offered, achieved, inflight float64, pass, unstable bool) (report.LevelStats, sweep.Level) {
	s := report.LevelStats{Rate: r, RequestsOK: 4, RequestsPerS: 11.9, OfferedRPS: offered, AchievedRPS: achieved,
		InflightMean: inflight, AggregateOutputTPS: 100 * achieved, Unstable: unstable,
		WindowEnd: 10 * time.Second, MeasuredSpan: 10 * time.Second, SLO: &report.SLOResult{Pass: pass}}
	if !pass {
		s.SLO.Failed = []string{"ttft_p95 3s > 1s"}
	}
	var recs []client.Record
	for i := range 4 {
		start := time.Duration(i) * time.Second
		recs = append(recs, client.Record{Rate: r, Start: start, End: start + 500*time.Millisecond})
	}
	return s, sweep.Level{Rate: r, Records: recs}
}

// The first example: --rates 8,16, both met the SLO. plan sizes
// on the 16 req/s level (not the two pooled as "C=0"), on its achieved
// rate: ceil(100 / (15.86 × 0.75)) = ceil(8.407) = 9 replicas; --users 500
// on its measured mean in flight, 8.3: ceil(500 / (8.3 × 0.75)) =
// ceil(80.32) = 81; Little's law 8.3 / 0.5 s = 16.6 req/s.
func TestPlanOnARateRun(t *testing.T) {
	s8, l8 := rateLevel(8, 7.98, 7.97, 4.1, true, false)
	s16, l16 := rateLevel(16, 15.9, 15.86, 8.3, true, false)
	p, err := fromParts("R", "ttft_p95 ≤ 1s", []report.LevelStats{s8, s16}, []sweep.Level{l8, l16}, Options{PeakRPS: 100, Users: 500, Headroom: 0.75})
	if err != nil {
		t.Fatal(err)
	}
	if p.Level.Key != "rate=16/s" || p.Level.Repeats != 1 || p.Level.RequestsPerS != 15.86 || p.Level.OfferedRPS != 15.9 {
		t.Errorf("level %+v, want rate=16/s alone, X = achieved 15.86 beside offered 15.9", p.Level)
	}
	if p.Replicas != 9 || p.UserReplicas != 81 || math.Abs(p.LittleRPS-16.6) > 1e-9 {
		t.Errorf("replicas %d, user replicas %d, Little %v; want 9, 81, 16.6", p.Replicas, p.UserReplicas, p.LittleRPS)
	}
	var b strings.Builder
	if err := p.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Level: 15.9 req/s offered (nominal 16) is the largest tested level", "achieved_rps          15.8600 req/s, at 15.9 req/s offered (nominal 16)", "= 9; N+1", "ceil(N / (L × h)) = ceil(500 / (8.3 × 0.75))", "X = L / E[E2E]"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	// An unstable level is not planned on, whatever its verdict: the
	// plan rests on the highest stable rate below it.
	s24, l24 := rateLevel(24, 23.9, 18, 40, true, true)
	p, err = fromParts("R", "", []report.LevelStats{s8, s16, s24}, []sweep.Level{l8, l16, l24}, Options{PeakRPS: 100, Headroom: 0.75})
	if err != nil || p.Level.Key != "rate=16/s" || !strings.Contains(p.Why, "23.9 req/s offered (nominal 24) cannot bear a verdict (unstable") {
		t.Errorf("with an unstable 24 req/s: %v, level %q, why %q", err, p.Level.Key, p.Why)
	}
}

// A count the run cannot give is refused (ErrCannotAnswer, exit 2), never
// printed as a negative or infinite number: issue 21's users on a level
// that measured none in flight, issue 25's --peak-rps 1e308 and
// --headroom 1e-300; --users beyond MaxUsers is an invalid option.
func TestPlanRefusesCountsItCannotGive(t *testing.T) {
	stats, levels := build([]lvl{{4, 8, 500 * time.Millisecond, yes, false}})
	s0, l0 := rateLevel(16, 15.9, 15.86, 0, true, false)
	for _, tc := range []struct {
		name   string
		stats  []report.LevelStats
		levels []sweep.Level
		o      Options
	}{
		{"peak 1e308", stats, levels, Options{PeakRPS: 1e308, Headroom: 0.75}},
		{"headroom 1e-300", stats, levels, Options{PeakRPS: 100, Headroom: 1e-300}},
		{"users with none in flight", []report.LevelStats{s0}, []sweep.Level{l0}, Options{PeakRPS: 100, Users: 500, Headroom: 0.75}},
	} {
		_, err := fromParts("run", "", tc.stats, tc.levels, tc.o)
		if !errors.Is(err, ErrCannotAnswer) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want a one-line ErrCannotAnswer", tc.name, err)
		}
	}
	if err := (Options{PeakRPS: 1, Users: 1e18, Headroom: 1}).Check(); err == nil {
		t.Error("--users 1e18 accepted")
	}
}

// The users arithmetic quotes L as its measured line does, to 4 places
// (a rate run's plan printed ceil(500 / (9.265870350583135 × 0.75))).
func TestPlaces4(t *testing.T) {
	for v, want := range map[float64]string{8: "8", 8.3: "8.3", 9.265870350583135: "9.2659", 64.00004: "64", 0.5: "0.5"} {
		if got := places4(v); got != want {
			t.Errorf("places4(%v) = %q, want %q", v, got, want)
		}
	}
}
