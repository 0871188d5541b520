package sweep

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/toksweep/toksweep/client"
)

// A replay level is keyed by its speed (Load, the level's and records'
// Rate) and the cap, its records name the mode, and a level read back
// without its Mode is recognised as a replay, not as a rate level.
func TestReplayModeKeysAndClaims(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rp := &Replay{MeanRate: 10, Requests: []ReplayRequest{{At: 0, Parent: -1}, {At: 100 * time.Millisecond, Parent: -1}},
			Prompt: func(int, *ReplayTurn, uint64) client.Prompt { return client.Prompt{} }}
		cfg := Config{Load: ReplayLoad(rp, []float64{0.5, 2}, 3), Prompt: func(int) client.Prompt { return client.Prompt{} }}
		var keys []LevelKey
		err := Run(context.Background(), cfg, newFake(time.Millisecond), func(l Level) error {
			keys = append(keys, l.Key())
			for _, r := range l.Records {
				if r.Mode != ReplayMode || r.Rate != l.Rate {
					t.Errorf("record mode %q rate %g in level %s", r.Mode, r.Rate, l.Key())
				}
			}
			l.Mode = "" // as read back from disk
			if got := l.Key(); got != (LevelKey{Mode: ReplayMode, Concurrency: 3, Load: l.Rate}) {
				t.Errorf("read back as %+v", got)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		want := []LevelKey{{ReplayMode, 3, 0.5}, {ReplayMode, 3, 2}}
		if len(keys) != 2 || keys[0] != want[0] || keys[1] != want[1] {
			t.Fatalf("keys %+v, want %+v", keys, want)
		}
		if n := keys[1].Name(); n != "speed=2× C≤3" {
			t.Errorf("name %q", n)
		}
		// A rate level's records carry no mode: it stays a rate level.
		rate := Level{Rate: 2, Records: []client.Record{{Rate: 2}}}
		if m := ClaimMode(&rate); m != RateMode {
			t.Errorf("a rate level claimed by %q", m)
		}
	})
}
