package compare

import (
	"slices"
	"strings"
	"testing"
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
	if !slices.Equal(c.ComparedRates, []float64{2, 4}) || !slices.Equal(c.OnlyBaselineRates, []float64{1}) ||
		!slices.Equal(c.OnlyRunRates, []float64{8}) || len(c.Compared) != 0 || len(c.Levels) != 2 {
		t.Fatalf("compared %v, only A %v, only B %v, C %v, %d levels", c.ComparedRates, c.OnlyBaselineRates, c.OnlyRunRates, c.Compared, len(c.Levels))
	}
	if c.Levels[0].Level() != "rate=2/s" || c.Levels[1].Rate != 4 {
		t.Errorf("levels %q, %v", c.Levels[0].Level(), c.Levels[1].Rate)
	}
	var b2 strings.Builder
	if err := tab.WriteText(&b2); err != nil {
		t.Fatal(err)
	}
	out := b2.String()
	for _, want := range []string{"compared rates 2,4 req/s (only in A: 1; only in B: 8)", "rate=2/s", "rate=4/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}
