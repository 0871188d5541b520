package sweep

import (
	"slices"
	"testing"
)

// Every registered mode's words for its levels, exactly, as the console,
// the charts, plan and the closing sentences print them (their consumers'
// tests check them in place; these check the modes' own files).
func TestModeWords(t *testing.T) {
	closed := LevelKey{Mode: ClosedMode, Concurrency: 4}
	sess := LevelKey{Mode: SessionsMode, Concurrency: 4}
	rate := LevelKey{Mode: RateMode, Load: 16}
	capped := LevelKey{Mode: RateMode, Load: 4, Concurrency: 2}
	replay := LevelKey{Mode: ReplayMode, Load: 2}
	replayCap := LevelKey{Mode: ReplayMode, Load: 0.5, Concurrency: 8}
	for _, tc := range []struct {
		k              LevelKey
		name, at, head string
		x              float64
		unbounded      bool
		sessions       bool
		one, many      string // Words.Limited(1), (2)
	}{
		{closed, "C=4", "concurrency 4", "C", 4, false, false, "may have been", "may have been"},
		{sess, "C=4", "4 concurrent sessions", "sessions", 4, false, true, "may have been", "may have been"},
		{rate, "rate=16/s", "rate 16 req/s", "rate/s", 16, true, false, "was", "were"},
		{capped, "rate=4/s C≤2", "rate 4 req/s", "rate/s", 4, false, false, "was", "were"},
		{replay, "speed=2×", "replay speed 2×", "speed×", 2, true, false, "was", "were"},
		{replayCap, "speed=0.5× C≤8", "replay speed 0.5×", "speed×", 0.5, false, false, "was", "were"},
	} {
		w := tc.k.Words()
		if got := tc.k.String(); got != tc.name {
			t.Errorf("%+v: String %q, want %q", tc.k, got, tc.name)
		}
		if got := tc.k.At(); got != tc.at {
			t.Errorf("%v: At %q, want %q", tc.k, got, tc.at)
		}
		if w.Head != tc.head || tc.k.X() != tc.x || tc.k.Unbounded() != tc.unbounded || tc.k.RunsSessions() != tc.sessions {
			t.Errorf("%v: head %q X %g unbounded %v sessions %v; want %q %g %v %v", tc.k, w.Head, tc.k.X(), tc.k.Unbounded(), tc.k.RunsSessions(), tc.head, tc.x, tc.unbounded, tc.sessions)
		}
		if w.Limited(1) != tc.one || w.Limited(2) != tc.many {
			t.Errorf("%v: Limited(1) %q, (2) %q; want %q, %q", tc.k, w.Limited(1), w.Limited(2), tc.one, tc.many)
		}
		if tc.k.IsZero() {
			t.Errorf("%v: IsZero", tc.k)
		}
	}
	if !(LevelKey{}).IsZero() {
		t.Error("the zero key is not IsZero")
	}
	// What a closed-loop level holds running, in the closing paragraph:
	// sessions count sessions; the closed loop keeps report's users and
	// requests (empty).
	if got := sess.Words().Running; got != "concurrent session" {
		t.Errorf("sessions' Running %q, want \"concurrent session\"", got)
	}
	if got := closed.Words().Running; got != "" {
		t.Errorf("the closed loop's Running %q, want none", got)
	}
	// A level line's load after its name: a replay's name says its
	// speed, so only the offered rate (none when not recorded); the rate
	// mode keeps Load (nil).
	if off := replay.Words().Offered; off == nil || off(replay, 2.41) != "offered 2.41 req/s" || off(replay, 0) != "" {
		t.Errorf("replay's Offered does not say the offered rate alone")
	}
	if rate.Words().Offered != nil {
		t.Error("the rate mode's level line should keep Load (RateText)")
	}

	// Open-loop loads in a sentence: nominal alone, with a note, and with
	// the offered rate the level realised.
	for _, tc := range []struct {
		k       LevelKey
		offered float64
		note    string
		want    string
	}{
		{rate, 0, "", "16 req/s (nominal)"},
		{rate, 0, "open loop", "16 req/s (nominal)"},
		{rate, 23.934, "", "23.93 req/s offered (nominal 16)"},
		{rate, 23.934, "open loop", "23.93 req/s offered (nominal 16)"},
		{replay, 0, "", "speed 2×"},
		{replay, 24.31, "", "speed 2× (offered 24.3 req/s)"},
		{replay, 24.31, "open loop", "speed 2× (offered 24.3 req/s, open loop)"},
	} {
		if got := tc.k.Words().Load(tc.k, tc.offered, tc.note); got != tc.want {
			t.Errorf("%v Load(%g, %q) = %q, want %q", tc.k, tc.offered, tc.note, got, tc.want)
		}
	}

	// Several levels in a sentence: a closed loop's concurrencies after
	// one "C=", others by name, each mode's run in its own words.
	two := LevelKey{Mode: ClosedMode, Concurrency: 2}
	if got, want := NameList([]LevelKey{two, closed, rate, capped}), "C=2,4, rate=16/s, rate=4/s C≤2"; got != want {
		t.Errorf("NameList = %q, want %q", got, want)
	}
	if got := NameList(nil); got != "" {
		t.Errorf("NameList(nil) = %q", got)
	}

	// A table's level column: one closed-type mode by its concurrency
	// under its head, anything else by name under "level".
	for _, tc := range []struct {
		ks     []LevelKey
		head   string
		labels []string
	}{
		{[]LevelKey{two, closed}, "C", []string{"2", "4"}},
		{[]LevelKey{sess}, "sessions", []string{"4"}},
		{[]LevelKey{rate, capped}, "level", []string{"rate=16/s", "rate=4/s C≤2"}},
		{[]LevelKey{two, sess}, "level", []string{"C=2", "C=4"}},
		{nil, "level", nil},
	} {
		head, label := LevelColumn(tc.ks)
		var labels []string
		for _, k := range tc.ks {
			labels = append(labels, label(k))
		}
		if head != tc.head || !slices.Equal(labels, tc.labels) {
			t.Errorf("LevelColumn(%v) = %q %q, want %q %q", tc.ks, head, labels, tc.head, tc.labels)
		}
	}
}

// How many requests a level measures, how many connections it opens first
// and after how many uniform failures it is aborted, for every mode.
func TestModeCounts(t *testing.T) {
	load := func(k LevelKey) Load {
		if k.Mode == ClosedMode {
			return ClosedLoad()
		}
		if k.Mode == RateMode {
			return RateLoad(nil, 0, RateSpec{})
		}
		return ReplayLoad(&Replay{}, nil, 0)
	}
	measured := func(k LevelKey, requests int) int {
		return load(k).Measured(&Config{Requests: requests}, k)
	}
	for _, tc := range []struct {
		k         LevelKey
		requests  int
		want      int
		warm, abt int
	}{
		{LevelKey{Mode: ClosedMode, Concurrency: 4}, 0, AutoRequests(4), 4, 4},
		{LevelKey{Mode: ClosedMode, Concurrency: 4}, 2, 4, 4, 4}, // at least one a worker
		{LevelKey{Mode: ClosedMode, Concurrency: 4}, 9, 9, 4, 4},
		{LevelKey{Mode: RateMode, Load: 16}, 0, 160, 16, 8},
		{LevelKey{Mode: RateMode, Load: 0.5}, 7, 7, 1, 8},
		{LevelKey{Mode: RateMode, Load: 100}, 7, 7, 64, 8},
		{LevelKey{Mode: RateMode, Load: 100, Concurrency: 3}, 7, 7, 3, 3},
	} {
		m := load(tc.k)
		if got := measured(tc.k, tc.requests); got != tc.want {
			t.Errorf("%v with %d requests: measures %d, want %d", tc.k, tc.requests, got, tc.want)
		}
		if got := m.WarmConns(tc.k); got != tc.warm {
			t.Errorf("%v: warms %d connections, want %d", tc.k, got, tc.warm)
		}
		if got := m.AbortAfter(tc.k); got != tc.abt {
			t.Errorf("%v: aborts after %d, want %d", tc.k, got, tc.abt)
		}
	}
	if got := ClosedLoad().AbortAfter(LevelKey{Mode: ClosedMode}); got != 1 {
		t.Errorf("closed C=0 aborts after %d, want 1", got)
	}
	rp := load(LevelKey{Mode: ReplayMode})
	if w, a := rp.WarmConns(LevelKey{Mode: ReplayMode, Load: 1}), rp.AbortAfter(LevelKey{Mode: ReplayMode, Load: 1}); w != 64 || a != 8 {
		t.Errorf("uncapped replay warms %d, aborts after %d; want 64, %d", w, a, 8)
	}
	if w, a := rp.WarmConns(LevelKey{Mode: ReplayMode, Load: 1, Concurrency: 5}), rp.AbortAfter(LevelKey{Mode: ReplayMode, Load: 1, Concurrency: 5}); w != 5 || a != 5 {
		t.Errorf("replay capped at 5 warms %d, aborts after %d; want 5, 5", w, a)
	}
}
