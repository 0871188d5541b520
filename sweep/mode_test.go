package sweep

import (
	"slices"
	"testing"

	"github.com/toksweep/toksweep/client"
)

// A level's key names, orders and compares it; a level read back without
// its mode is claimed by the mode its records show.
func TestLevelKeys(t *testing.T) {
	closed := LevelKey{Mode: ClosedMode, Concurrency: 4}
	rate := LevelKey{Mode: RateMode, Load: 16}
	sess := LevelKey{Mode: SessionsMode, Concurrency: 2}
	for _, tc := range []struct {
		k        LevelKey
		name, at string
		unit     string
		open     bool
	}{
		{closed, "C=4", "concurrency 4", "concurrent users", false},
		{rate, "rate=16/s", "rate 16 req/s", "requests per second", true},
		{sess, "C=2", "2 concurrent sessions", "concurrent sessions", false},
	} {
		if tc.k.Name() != tc.name || tc.k.At() != tc.at || tc.k.Words().Unit != tc.unit || tc.k.IsOpen() != tc.open {
			t.Errorf("%+v: %q %q %q open %v", tc.k, tc.k.Name(), tc.k.At(), tc.k.Words().Unit, tc.k.IsOpen())
		}
	}
	keys := []LevelKey{closed, {Mode: RateMode, Load: 32}, sess, rate, {Mode: ClosedMode, Concurrency: 1}}
	slices.SortFunc(keys, LevelKey.Compare)
	want := []LevelKey{rate, {Mode: RateMode, Load: 32}, sess, {Mode: ClosedMode, Concurrency: 1}, closed}
	if !slices.Equal(keys, want) {
		t.Errorf("sorted %v, want %v", keys, want)
	}
	for _, tc := range []struct {
		l    Level
		mode string
	}{
		{Level{Concurrency: 4, Records: []client.Record{{}}}, ClosedMode},
		{Level{Rate: 8, Records: []client.Record{{Rate: 8}}}, RateMode},
		{Level{Concurrency: 2, Records: []client.Record{{Session: 1, Turn: 1}}}, SessionsMode},
		{Level{Mode: RateMode, Rate: 8}, RateMode},
	} {
		if got := tc.l.Key().Mode; got != tc.mode {
			t.Errorf("%+v: mode %q, want %q", tc.l, got, tc.mode)
		}
	}
	if (LevelKey{Mode: "no-such-mode", Concurrency: 3}).Name() != "C=3" {
		t.Error("an unknown mode does not fall back to the closed loop's words")
	}
}
