package compare

import (
	"strings"
	"testing"

	"github.com/toksweep/toksweep/sweep"
)

// asRates turns a run's levels into open-loop levels keyed by the given
// rates (uncapped: C = 0), as sweep --rates writes them.
func asRates(r Run, rates ...float64) Run {
	for i := range r.Levels {
		l := &r.Levels[i]
		l.Concurrency, l.Rate = 0, rates[i]
		for j := range l.Records {
			l.Records[j].Concurrency, l.Records[j].Rate = 0, rates[i]
			l.Records[j].Sched = l.Records[j].Start
		}
	}
	return r
}

// asMode names the mode of a run's levels, as a sweep of that mode writes
// them.
func asMode(r Run, mode string) Run {
	for i := range r.Levels {
		r.Levels[i].Mode = mode
	}
	return r
}

// Rate runs compare rate by rate: levels of one C but different rates are
// different levels, and the text names them by rate.
func TestCompareRates(t *testing.T) {
	a := asRates(base.run("a", 1, 4, 2, 2, 2), 1, 2, 4)
	b := asRates(base.scaled(0.8).run("b", 2, 4, 2, 2), 2, 4)
	b.Levels = append(b.Levels, asRates(base.run("x", 3, 4, 2), 8).Levels...)
	tab, err := Compare([]Run{a, b}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := tab.Comparisons[0]
	if got := [3]string{names(c.Compared), names(c.OnlyBaseline), names(c.OnlyRun)}; got != [3]string{"rate=2/s, rate=4/s", "rate=1/s", "rate=8/s"} || len(c.Levels) != 2 {
		t.Fatalf("compared %q, only A %q, only B %q; %d levels", got[0], got[1], got[2], len(c.Levels))
	}
	if c.Levels[0].Key.Name() != "rate=2/s" || c.Levels[1].Key.Load != 4 {
		t.Errorf("levels %q, %v", c.Levels[0].Key.Name(), c.Levels[1].Key)
	}
	var b2 strings.Builder
	if err := tab.WriteText(&b2); err != nil {
		t.Fatal(err)
	}
	out := b2.String()
	for _, want := range []string{"B vs A: compared rate=2/s, rate=4/s (only in A: rate=1/s; only in B: rate=8/s)\n", "rate=2/s", "rate=4/s", "at rate=2/s, rate=4/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "pairs only") {
		t.Errorf("two rate runs noted as of different modes:\n%s", out)
	}
}

// Levels pair only with levels of their own key: a sessions run's C=2 is
// not a closed loop's C=2, nor a replay's speed 2 a rate of 2 req/s. A run
// of another mode shares no level with the baseline and is noted as such,
// while a run of the baseline's mode beside it (the baseline again, C) is
// compared.
func TestCompareModesNeverPair(t *testing.T) {
	closed := base.run("closed", 1, 4, 2, 4)
	for _, tc := range []struct {
		name         string
		a, b         Run
		note         string
		onlyA, onlyB string
	}{
		{"sessions", closed, asMode(base.run("s", 2, 4, 2, 4), sweep.SessionsMode),
			"B vs A: A ran mode closed, B ran mode sessions; a level pairs only with a level of its own mode\n", "C=2,4", "C=2,4"},
		{"rate", closed, asRates(base.run("r", 3, 4, 2, 2), 2, 4),
			"B vs A: A ran mode closed, B ran mode rate; a level pairs only with a level of its own mode\n", "C=2,4", "rate=2/s, rate=4/s"},
		{"replay", asRates(base.run("r", 3, 4, 2, 2), 2, 4), asMode(asRates(base.run("p", 4, 4, 2, 2), 2, 4), sweep.ReplayMode),
			"B vs A: A ran mode rate, B ran mode replay; a level pairs only with a level of its own mode\n", "rate=2/s, rate=4/s", "speed=2×, speed=4×"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab, err := Compare([]Run{tc.a, tc.b, tc.a}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			c := tab.Comparisons[0]
			if len(c.Compared) != 0 || len(c.Levels) != 0 || names(c.OnlyBaseline) != tc.onlyA || names(c.OnlyRun) != tc.onlyB {
				t.Errorf("compared %v, only in A %q, only in B %q; want none, %q, %q", c.Compared, names(c.OnlyBaseline), names(c.OnlyRun), tc.onlyA, tc.onlyB)
			}
			if n := len(tab.Comparisons[1].Levels); n != 2 {
				t.Errorf("C, of A's mode: %d levels compared, want 2", n)
			}
			var b strings.Builder
			if err := tab.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if !strings.Contains(out, tc.note) || strings.Count(out, "pairs only") != 1 {
				t.Errorf("text lacks %q once (for B only):\n%s", tc.note, out)
			}
		})
	}
}
