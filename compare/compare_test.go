package compare

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// TestKnownDifference: B's decode rates are drawn 10% faster than A's; the
// difference is significant and the interval covers the true ratio.
func TestKnownDifference(t *testing.T) {
	a := base.run("a", 1, 16, 4, 8)
	b := base.scaled(1.10).run("b", 2, 16, 4, 8)
	tab, err := Compare([]Run{a, b}, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range tab.Comparisons[0].Levels {
		e := l.Estimate(DecodeP50)
		if !e.Significant() || !(e.Low > 1) {
			t.Errorf("C=%d: 10%% faster not significant: ratio %.3f CI [%.3f, %.3f]", l.Key.Concurrency, e.Ratio, e.Low, e.High)
		}
		if !(e.Low <= 1.10 && 1.10 <= e.High) {
			t.Errorf("C=%d: CI [%.3f, %.3f] misses the true ratio 1.10", l.Key.Concurrency, e.Low, e.High)
		}
		// One run a side: the interval is shown, but no verdict rests on it.
		if v := e.Verdict("B", tab.Confidence); !strings.HasPrefix(v, "no verdict from one run a side (+") || e.Meaningful() {
			t.Errorf("C=%d: verdict %q", l.Key.Concurrency, v)
		}
		if ttft := l.Estimate(TTFTP50); ttft.Significant() {
			t.Errorf("C=%d: TTFT is the same distribution but significant: %s", l.Key.Concurrency, ttft.Verdict("B", 0.95))
		}
	}
}

// TestSameDistribution: A and B are drawn from one distribution; over many
// independent pairs the 95% interval flags a difference about 5% of the
// time, and the median pair shows none.
func TestSameDistribution(t *testing.T) {
	const pairs = 40
	flagged := 0
	for i := range pairs {
		a := base.run("a", uint64(100+2*i), 24, 8)
		b := base.run("b", uint64(101+2*i), 24, 8)
		tab, err := Compare([]Run{a, b}, Options{Seed: uint64(i), Resamples: 1000})
		if err != nil {
			t.Fatal(err)
		}
		e := tab.Comparisons[0].Levels[0].Estimate(DecodeP50)
		if e.Significant() {
			flagged++
		}
		if e.Meaningful() {
			t.Errorf("pair %d: a verdict of difference from one run a side: %s", i, e.Verdict("B", 0.95))
		}
		if v := e.Verdict("B", 0.95); i == 0 && !strings.HasPrefix(v, "no verdict from one run a side (") {
			t.Errorf("verdict %q", v)
		}
	}
	t.Logf("%d of %d pairs flagged", flagged, pairs)
	// Binomial(40, 0.05): P(X ≥ 7) < 0.5%.
	if flagged > 6 {
		t.Errorf("%d of %d same-distribution pairs flagged significant, want about 2", flagged, pairs)
	}
}

func TestSharedLevels(t *testing.T) {
	a := base.run("a", 1, 4, 1, 2, 4)
	b := base.run("b", 2, 4, 2, 4, 8)
	c := base.run("c", 3, 4, 16)
	tab, err := Compare([]Run{a, b, c}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		label                string
		both, onlyA, onlyRun []int
	}{
		{"B", []int{2, 4}, []int{1}, []int{8}},
		{"C", nil, []int{1, 2, 4}, []int{16}},
	}
	cs := func(ks []sweep.LevelKey) []int {
		var out []int
		for _, k := range ks {
			if k.Mode != sweep.ClosedMode {
				t.Errorf("%s: not a closed-loop level", k)
			}
			out = append(out, k.Concurrency)
		}
		return out
	}
	for i, tt := range tests {
		cmp := tab.Comparisons[i]
		if cmp.Label != tt.label || !slices.Equal(cs(cmp.Compared), tt.both) ||
			!slices.Equal(cs(cmp.OnlyBaseline), tt.onlyA) || !slices.Equal(cs(cmp.OnlyRun), tt.onlyRun) {
			t.Errorf("%s: compared %v only A %v only run %v, want %v %v %v", cmp.Label,
				cmp.Compared, cmp.OnlyBaseline, cmp.OnlyRun, tt.both, tt.onlyA, tt.onlyRun)
		}
		if len(cmp.Levels) != len(tt.both) {
			t.Errorf("%s: %d level comparisons, want %d", cmp.Label, len(cmp.Levels), len(tt.both))
		}
	}
	if got := tab.Comparisons[1].Overall(); got != "C vs A: no level in common" {
		t.Errorf("Overall = %q", got)
	}
}

// TestPointEstimates: with one repetition, the compared figures are the
// report's own, and repetitions are pooled.
func TestPointEstimates(t *testing.T) {
	a := base.run("a", 5, 6, 4)
	rng := rand.New(rand.NewPCG(9, 9))
	b := Run{Name: "b"}
	for rep := range 2 {
		b.Levels = append(b.Levels, base.level(rng, 4, 6, rep, 0))
	}
	tab, err := Compare([]Run{a, b}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := tab.Comparisons[0].Levels[0]
	s := report.Summarize(a.Levels[0], report.Settings{})
	want := map[Metric]float64{
		DecodeP50:       s.DecodeTPSP50,
		TTFTP50:         float64(s.TTFTP50) / 1e6,
		TTFTP95:         float64(s.TTFTP95) / 1e6,
		AggregateOutput: s.AggregateOutputTPS,
	}
	for m, w := range want {
		if got := l.Estimate(m).A; math.Abs(got-w) > 1e-9*w {
			t.Errorf("%s: A = %v, want the report's %v", m, got, w)
		}
	}
	if e := l.Estimate(DecodeP50); e.NA != 24 || e.NB != 48 {
		t.Errorf("decode samples %d and %d, want 24 and 48 (two repetitions pooled)", e.NA, e.NB)
	}
	if e := l.Estimate(AggregateOutput); e.NB != 2 || e.HasCI() {
		t.Errorf("aggregate: NB %d (want 2 repetitions), CI %v", e.NB, e.HasCI())
	}
}

func TestTooFewSamples(t *testing.T) {
	a := base.run("a", 1, 1, 2) // 2 measured requests
	b := base.run("b", 2, 8, 2)
	tab, err := Compare([]Run{a, b}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := tab.Comparisons[0].Levels[0].Estimate(DecodeP50)
	if e.HasCI() || e.Verdict("B", 0.95) != "" || math.IsNaN(e.Ratio) {
		t.Errorf("2 requests: CI %v verdict %q ratio %v; want a ratio without interval", e.HasCI(), e.Verdict("B", 0.95), e.Ratio)
	}
	if got := tab.Comparisons[0].Overall(); !strings.Contains(got, "no interval (too few requests) at C=2") {
		t.Errorf("Overall = %q", got)
	}
}

func TestDeterministic(t *testing.T) {
	runs := []Run{base.run("a", 1, 8, 2, 4), base.run("b", 2, 8, 2, 4)}
	var csvs [2]strings.Builder
	for i := range csvs {
		tab, err := Compare(runs, Options{Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		tab.WriteCSV(&csvs[i])
	}
	if csvs[0].String() != csvs[1].String() {
		t.Error("the same inputs and seed gave different tables")
	}
}

func TestOptionErrors(t *testing.T) {
	runs := []Run{base.run("a", 1, 2, 1), base.run("b", 2, 2, 1)}
	tests := []struct {
		name string
		runs []Run
		opts Options
	}{
		{"one run", runs[:1], Options{}},
		{"few resamples", runs, Options{Resamples: 10}},
		{"confidence 1", runs, Options{Confidence: 1}},
		{"confidence negative", runs, Options{Confidence: -0.5}},
		{"min effect negative", runs, Options{MinEffect: -0.01}},
		{"min effect 1", runs, Options{MinEffect: 1}},
	}
	for _, tt := range tests {
		if _, err := Compare(tt.runs, tt.opts); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}

func TestVerdict(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		e    Estimate
		want string
	}{
		{Estimate{Metric: DecodeP50, Ratio: 1.031, Low: 1.012, High: 1.050}, "B is 3.1% faster (95% CI 1.2–5.0%)"},
		{Estimate{Metric: DecodeP50, Ratio: 0.9, Low: 0.88, High: 0.93}, "B is 10.0% slower (95% CI 7.0–12.0%)"},
		{Estimate{Metric: DecodeP50, Ratio: 0.996, Low: 0.979, High: 1.013}, "no significant difference (-0.4%, 95% CI -2.1% to +1.3%)"},
		{Estimate{Metric: TTFTP50, Ratio: 0.92, Low: 0.861, High: 0.98}, "B's TTFT p50 is 8.0% lower (95% CI 2.0–13.9%)"},
		{Estimate{Metric: TTFTP95, Ratio: 1.2, Low: nan, High: nan}, ""},
		// Small but significant: two decimals, never "0.0% faster".
		{Estimate{Metric: DecodeP50, Ratio: 1.0004, Low: 1.0001, High: 1.0009}, "B is 0.04% faster (95% CI 0.01–0.09%)"},
		{Estimate{Metric: DecodeP50, Ratio: 0.9996, Low: 0.999, High: 1.0003}, "no significant difference (-0.04%, 95% CI -0.10% to +0.03%)"},
		// A difference that rounds to zero has no sign.
		{Estimate{Metric: DecodeP50, Ratio: 0.999999, Low: 0.996, High: 1.004}, "no significant difference (+0.00%, 95% CI -0.40% to +0.40%)"},
	}
	for _, tt := range tests {
		if got := tt.e.Verdict("B", 0.95); got != tt.want {
			t.Errorf("Verdict(%+v) = %q, want %q", tt.e, got, tt.want)
		}
	}
}

// TestBetweenRunsInterval checks the interval between runs on figures whose
// logs are round: A's repetitions have logs 0 and 0.2, B's 0.1 and 0.3, so
// each side's log variance is 0.2²/2 = 0.02, se² = 0.02/2 + 0.02/2 = 0.02,
// Welch's degrees of freedom are 0.02² / (2 × 0.01²) = 2, and the interval
// is ratio × exp(±t(0.025, 2) × √0.02).
func TestBetweenRunsInterval(t *testing.T) {
	a := []float64{1, math.Exp(0.2)}
	b := []float64{math.Exp(0.1), math.Exp(0.3)}
	const ratio = 1.1
	half := 4.302652729911275 * math.Sqrt(0.02) // t(0.025, 2), two-sided 95% tables
	lo, hi := betweenRuns(ratio, a, b, 0.95)
	if math.Abs(lo-ratio*math.Exp(-half)) > 1e-9 || math.Abs(hi-ratio*math.Exp(half)) > 1e-9 {
		t.Errorf("interval [%v, %v], want [%v, %v]", lo, hi, ratio*math.Exp(-half), ratio*math.Exp(half))
	}
	// Identical repetitions: no spread, a point.
	if lo, hi := betweenRuns(ratio, []float64{2, 2}, []float64{3, 3, 3}, 0.95); lo != ratio || hi != ratio {
		t.Errorf("no spread: [%v, %v], want the point %v", lo, hi, ratio)
	}
}

// TestRepeatsDecideTheInterval: B's requests are drawn 5% slower than A's
// overall, with two repetitions a side. When each side's repetitions
// disagree by 10% (run-to-run noise bigger than the difference) the
// interval between runs is wide and shows no significant difference, though
// a bootstrap over the pooled requests would call it; when the repetitions
// agree, the interval is narrow and B is slower.
func TestRepeatsDecideTheInterval(t *testing.T) {
	sides := func(spread float64) (a, b Run) {
		a, b = Run{Name: "a"}, Run{Name: "b"}
		for rep, f := range []float64{1 - spread/2, 1 + spread/2} {
			rngA, rngB := rand.New(rand.NewPCG(uint64(rep), 1)), rand.New(rand.NewPCG(uint64(rep), 2))
			a.Levels = append(a.Levels, base.scaled(f).level(rngA, 8, 16, rep, 0))
			b.Levels = append(b.Levels, base.scaled(0.95*f).level(rngB, 8, 16, rep, 0))
		}
		return a, b
	}
	decode := func(a, b Run) Estimate {
		tab, err := Compare([]Run{a, b}, Options{Seed: 1, MinEffect: DefaultMinEffect})
		if err != nil {
			t.Fatal(err)
		}
		return tab.Comparisons[0].Levels[0].Estimate(DecodeP50)
	}
	noisyA, noisyB := sides(0.10)
	noisy := decode(noisyA, noisyB)
	if noisy.Interval != Repeats || noisy.RA != 2 || noisy.RB != 2 {
		t.Fatalf("interval %q over %d and %d repetitions, want repeats over 2 and 2", noisy.Interval, noisy.RA, noisy.RB)
	}
	if noisy.Significant() || !strings.HasPrefix(noisy.Verdict("B", 0.95), "no significant difference") {
		t.Errorf("repetitions 10%% apart: %s, want no significant difference", noisy.Verdict("B", 0.95))
	}
	// The same requests as one run a side: the bootstrap sees only the
	// request-to-request noise and calls the difference.
	pooled := decode(oneRun(noisyA), oneRun(noisyB))
	// The same requests as one run a side: the bootstrap sees only the
	// request-to-request noise and its interval excludes 1, but no verdict
	// rests on it.
	if pooled.Interval != Requests || !pooled.Significant() || pooled.Meaningful() || pooled.Low > 1 {
		t.Errorf("pooled as one run: %s (%q interval), want a significant bootstrap but no verdict", pooled.Verdict("B", 0.95), pooled.Interval)
	}
	if !(noisy.High-noisy.Low > 2*(pooled.High-pooled.Low)) {
		t.Errorf("between-run interval [%.3f, %.3f] not wider than the bootstrap's [%.3f, %.3f]", noisy.Low, noisy.High, pooled.Low, pooled.High)
	}
	steady := decode(sides(0))
	t.Logf("repetitions 10%% apart: %s; pooled: %s; consistent: %s",
		noisy.Verdict("B", 0.95), pooled.Verdict("B", 0.95), steady.Verdict("B", 0.95))
	if steady.Interval != Repeats || !steady.Meaningful() || !(steady.High < 1) {
		t.Errorf("consistent repetitions: %s, want B slower", steady.Verdict("B", 0.95))
	}
	if !(steady.Low <= 0.95 && 0.95 <= steady.High) || steady.High-steady.Low > 0.1 {
		t.Errorf("consistent repetitions: CI [%.3f, %.3f], want a narrow one around 0.95", steady.Low, steady.High)
	}
}

// oneRun relabels every level of r as repetition 0 of one run: the same
// requests, pooled as one level.
func oneRun(r Run) Run {
	var recs []client.Record
	for _, l := range r.Levels {
		recs = append(recs, l.Records...)
	}
	l := r.Levels[0]
	l.Records, l.Repeat = recs, 0
	l.End = r.Levels[len(r.Levels)-1].End
	return Run{Name: r.Name, Levels: []sweep.Level{l}}
}

// TestMinEffect: a significant difference under the floor is no meaningful
// difference, at or over it a verdict; the floor 0 turns it off.
func TestMinEffect(t *testing.T) {
	sig := Estimate{Metric: DecodeP50, Ratio: 0.9984, Low: 0.9981, High: 0.9995, Interval: Requests}
	tests := []struct {
		e         Estimate
		minEffect float64
		want      string
	}{
		{sig, 0.02, "no verdict from one run a side (-0.16%, 95% CI -0.19% to -0.05% over requests, which ignores run-to-run variation: use --repeat 2 or more on both sides)"},
		{Estimate{Metric: DecodeP50, Ratio: 0.9984, Low: 0.9981, High: 0.9995, Interval: Repeats}, 0.02, "no meaningful difference (-0.16%, 95% CI -0.19% to -0.05%, under the 2% floor)"},
		{Estimate{Metric: DecodeP50, Ratio: 0.9984, Low: 0.9981, High: 0.9995, Interval: Repeats}, 0, "B is 0.16% slower (95% CI 0.05–0.19%)"},
		{Estimate{Metric: DecodeP50, Ratio: 1.02, Low: 1.01, High: 1.03, Interval: Repeats}, 0.02, "B is 2.0% faster (95% CI 1.0–3.0%)"},
		{Estimate{Metric: TTFTP50, Ratio: 0.985, Low: 0.97, High: 0.99}, 0.015, "B's TTFT p50 is 1.5% lower (95% CI 1.0–3.0%)"},
		{Estimate{Metric: TTFTP50, Ratio: 1.04, Low: 1.01, High: 1.07}, 0.05, "no meaningful difference (+4.0%, 95% CI +1.0% to +7.0%, under the 5% floor)"},
		{Estimate{Metric: DecodeP50, Ratio: 0.97, Low: 0.94, High: 1.01}, 0.02, "no significant difference (-3.0%, 95% CI -6.0% to +1.0%)"},
	}
	for _, tt := range tests {
		tt.e.MinEffect = tt.minEffect
		if got := tt.e.Verdict("B", 0.95); got != tt.want {
			t.Errorf("Verdict(%+v) = %q, want %q", tt.e, got, tt.want)
		}
	}
	// Overall groups the level run once a side apart.
	c := Comparison{Label: "B", Levels: []LevelComparison{{Key: sweep.LevelKey{Mode: sweep.ClosedMode, Concurrency: 4}, Estimates: []Estimate{{Metric: DecodeP50, Ratio: sig.Ratio, Low: sig.Low, High: sig.High, Interval: Requests, MinEffect: 0.02}}}}}
	want := "B vs A, per-stream decode tok/s p50: no verdict (one run a side) at C=4 (run-to-run variation not measured at C=4: a side ran the level once; use --repeat 2 or more on both sides)"
	if got := c.Overall(); got != want {
		t.Errorf("Overall = %q, want %q", got, want)
	}
}

// TestTTFTFromOneRunIsNotJudged: identical runs moved TTFT p50 by 4% with a
// within-run interval that excluded 1. From one run a side a TTFT gets no
// verdict; with repetitions on both sides the same numbers get one.
func TestTTFTFromOneRunIsNotJudged(t *testing.T) {
	e := Estimate{Metric: TTFTP50, Ratio: 1.043, Low: 1.013, High: 1.606, Interval: Requests, MinEffect: 0.02}
	if e.Meaningful() {
		t.Error("a TTFT from one run a side was called meaningful")
	}
	if v := e.Verdict("B", 0.95); !strings.HasPrefix(v, "no verdict from one run a side") {
		t.Errorf("verdict %q", v)
	}
	e.Interval = Repeats
	if !e.Meaningful() || !strings.Contains(e.Verdict("B", 0.95), "higher") {
		t.Errorf("with repeats on both sides: meaningful %v, verdict %q", e.Meaningful(), e.Verdict("B", 0.95))
	}
	d := Estimate{Metric: DecodeP50, Ratio: 0.95, Low: 0.93, High: 0.97, Interval: Requests, MinEffect: 0.02}
	if d.Meaningful() || !strings.HasPrefix(d.Verdict("B", 0.95), "no verdict from one run a side") {
		t.Errorf("decode from one run a side got a verdict: %s", d.Verdict("B", 0.95))
	}
}
