package openloop

import (
	"testing"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/sweep"
)

type script []float64

func (s *script) Next() (float64, bool) {
	if len(*s) == 0 {
		return 0, false
	}
	x := (*s)[0]
	*s = (*s)[1:]
	return x, true
}

// Keys are the list's loads at the cap, or the chooser's when it is set.
func TestKeys(t *testing.T) {
	t.Parallel()
	collect := func(next func() (sweep.LevelKey, bool)) []sweep.LevelKey {
		var ks []sweep.LevelKey
		for k, ok := next(); ok; k, ok = next() {
			ks = append(ks, k)
		}
		return ks
	}
	got := collect(Keys("rate", 3, []float64{1, 2}, nil))
	if len(got) != 2 || got[0] != (sweep.LevelKey{Mode: "rate", Concurrency: 3, Load: 1}) || got[1].Load != 2 {
		t.Errorf("list keys %+v", got)
	}
	ch := script{5, 7}
	got = collect(Keys("replay", 0, []float64{1}, &ch))
	if len(got) != 2 || got[0] != (sweep.LevelKey{Mode: "replay", Load: 5}) || got[1].Load != 7 {
		t.Errorf("chooser keys %+v", got)
	}
}

// The cap bounds a level's name, its abort count and its being unbounded.
func TestCap(t *testing.T) {
	t.Parallel()
	free, capped := sweep.LevelKey{Load: 4}, sweep.LevelKey{Load: 4, Concurrency: 2}
	if !Uncapped(free) || Uncapped(capped) {
		t.Error("Uncapped")
	}
	if AbortAfter(free) != 8 || AbortAfter(capped) != 2 {
		t.Errorf("AbortAfter %d, %d; want 8, 2", AbortAfter(free), AbortAfter(capped))
	}
	if Named("rate=4/s", free) != "rate=4/s" || Named("rate=4/s", capped) != "rate=4/s C≤2" {
		t.Errorf("Named %q, %q", Named("rate=4/s", free), Named("rate=4/s", capped))
	}
	if got := JoinRates([]float64{1, 2.5, 4}); got != "1,2.5,4" {
		t.Errorf("JoinRates %q", got)
	}
}

// Result is the search's state: the ramp's first levels, passing.
func TestResult(t *testing.T) {
	t.Parallel()
	s := NewSearch(func(r float64) mode.RateVerdict { return mode.RateVerdict{Pass: true, Achieved: r, Offered: r * 0.9} }, 100)
	s.Next()
	s.Next()
	r := s.Result()
	if len(r.Tried) != 2 || r.Pass != 1 || r.Fail != 0 || r.Offered[1] != 0.9 {
		t.Errorf("result %+v", r)
	}
}
