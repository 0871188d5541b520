package app

import (
	"slices"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/mode/closed"
	"github.com/toksweep/toksweep/mode/rate"
	"github.com/toksweep/toksweep/mode/replay"
)

// Every registered mode's flags are sweep flags, each once, and the
// closed loop's stand where --help has always shown them.
func TestModeFlagsAreSweepFlags(t *testing.T) {
	t.Parallel()
	var names []string
	for _, f := range sweepFlags(&options{}) {
		names = append(names, f.Names()[0])
	}
	o := &options{}
	for _, m := range modes() {
		for _, f := range m.Flags(&o.Line) {
			if n := countOf(names, f.Names()[0]); n != 1 {
				t.Errorf("mode %s: --%s is %d times among the sweep flags", m.Name(), f.Names()[0], n)
			}
		}
	}
	for _, pair := range [][2]string{{"levels", "requests"}, {"auto-granularity", "reading-speed"}, {"think-time", "rates"}, {"burstiness", "trace"}, {"max-concurrency", "shard"}} {
		if i := slices.Index(names, pair[0]); i < 0 || i+1 >= len(names) || names[i+1] != pair[1] {
			t.Errorf("--%s is not just before --%s: %v", pair[0], pair[1], names)
		}
	}
}

func countOf(names []string, name string) int {
	n := 0
	for _, s := range names {
		if s == name {
			n++
		}
	}
	return n
}

// A flag placed before a flag that is gone ends the list: it is not lost.
func TestPlaceFlagsKeepsAFlagWhosePlaceIsGone(t *testing.T) {
	t.Parallel()
	a, b, c := &cli.StringFlag{Name: "a"}, &cli.StringFlag{Name: "b"}, &cli.StringFlag{Name: "c"}
	got := placeFlags([]cli.Flag{a, b}, map[string][]cli.Flag{"b": {c}, "gone": {&cli.StringFlag{Name: "d"}}})
	var names []string
	for _, f := range got {
		names = append(names, f.Names()[0])
	}
	if want := []string{"a", "c", "b", "d"}; !slices.Equal(names, want) {
		t.Errorf("placeFlags: %v, want %v", names, want)
	}
}

// The command line chooses one mode, asked in rank order.
func TestChosenMode(t *testing.T) {
	t.Parallel()
	cases := []struct {
		o    *options
		want string
	}{
		{&options{}, "closed"},
		{withRates(&options{}), "rate"},
		{withTrace(&options{}), "replay"},
	}
	for _, tc := range cases {
		if got := tc.o.mode().Name(); got != tc.want {
			t.Errorf("mode %s, want %s", got, tc.want)
		}
	}
}

// withRates gives o a --rates; withTrace a --trace.
func withRates(o *options) *options { rate.Of(&o.Line).RatesSet = true; return o }
func withTrace(o *options) *options { replay.Of(&o.Line).File = "t.jsonl"; return o }

// withLevels gives o the closed loop's checked --levels.
func withLevels(o *options, levels ...int) *options {
	closed.Of(&o.Line).Levels = levels
	return o
}
