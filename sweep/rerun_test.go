package sweep

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// A key handed out again numbers its runs on from its earlier ones (its
// records carry the number too).
func TestRerunNumbersItsRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, tc := range []struct {
			repeat int
			want   []int
		}{
			{1, []int{0, 1, 0}},
			{2, []int{0, 1, 2, 3, 0, 1}},
		} {
			cfg := Config{Load: ClosedLoad(1, 1, 2), Requests: 2, Repeat: tc.repeat, Prompt: Cycle(prompts(1))}
			levels, err := collect(t, context.Background(), cfg, newFake(time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, l := range levels {
				got = append(got, l.Repeat)
				for r := range l.All() {
					if r.Repeat != l.Repeat {
						t.Errorf("a record of repeat %d in level repeat %d", r.Repeat, l.Repeat)
					}
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("repeat %d: repeats %v, want %v", tc.repeat, got, tc.want)
			}
		}
	})
}
