package compare

import (
	"testing"

	"github.com/toksweep/toksweep/sweep"
)

// SharedErr: nil as soon as one run shares a level with A; otherwise one
// line naming, per run, the levels only in A and only in it, and the modes
// when they differ.
func TestSharedErr(t *testing.T) {
	c := func(n int) sweep.LevelKey { return sweep.LevelKey{Mode: sweep.ClosedMode, Concurrency: n} }
	r := func(x float64) sweep.LevelKey { return sweep.LevelKey{Mode: sweep.RateMode, Load: x} }
	shared := Table{Runs: []string{"a", "b", "c"}, Comparisons: []Comparison{
		{Label: "B", OnlyBaseline: []sweep.LevelKey{c(1)}, OnlyRun: []sweep.LevelKey{c(2)}},
		{Label: "C", Compared: []sweep.LevelKey{c(1)}},
	}}
	if err := shared.SharedErr(); err != nil {
		t.Errorf("C shares C=1 with A: %v", err)
	}
	none := Table{Runs: []string{"runA", "runB", "runC"}, Comparisons: []Comparison{
		{Label: "B", OnlyBaseline: []sweep.LevelKey{c(1), c(2)}, OnlyRun: []sweep.LevelKey{c(4)}},
		{Label: "C", OnlyBaseline: []sweep.LevelKey{c(1), c(2)}, OnlyRun: []sweep.LevelKey{r(8)}},
	}}
	err := none.SharedErr()
	if err == nil {
		t.Fatal("no run shares a level: want an error")
	}
	want := "the runs share no level with runA: nothing to compare (only in A: C=1,2; only in B: C=4; " +
		"only in A: C=1,2; only in C: rate=8/s; A ran mode closed, C ran mode rate; a level pairs only with a level of its own mode)"
	if err.Error() != want {
		t.Errorf("SharedErr:\n got %s\nwant %s", err, want)
	}
	if err := (Table{}).SharedErr(); err == nil || err.Error() != "the runs share no level with A: nothing to compare ()" {
		t.Errorf("an empty table: %v", err)
	}
}
