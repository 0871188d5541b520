package sweep

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// rerunning is a Load that says whether it reruns keys.
type rerunning struct {
	Load
	reruns bool
}

func (r rerunning) Reruns() bool { return r.reruns }

// A Rerunner's key handed out again numbers its runs on from its earlier
// ones (its records carry the number too); any other Load's starts at 0
// each time.
func TestRerunNumbersItsRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, tc := range []struct {
			reruns bool
			repeat int
			want   []int
		}{
			{true, 1, []int{0, 1, 0}},
			{true, 2, []int{0, 1, 2, 3, 0, 1}},
			{false, 2, []int{0, 1, 0, 1, 0, 1}},
		} {
			cfg := Config{Load: rerunning{Load: ClosedLoad(1, 1, 2), reruns: tc.reruns}, Requests: 2, Repeat: tc.repeat, Prompt: Cycle(prompts(1))}
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
				t.Errorf("reruns %v, repeat %d: repeats %v, want %v", tc.reruns, tc.repeat, got, tc.want)
			}
		}
	})
}
