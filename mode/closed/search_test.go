package closed

import (
	"math/bits"
	"testing"
)

// scripted is a server whose SLO verdict and aggregate throughput are known
// for every concurrency: it passes up to `limit` users and saturates at
// `sat` (aggregate grows linearly up to sat, then stays flat).
func scripted(limit, sat int) func(int) (bool, float64) {
	return func(c int) (bool, float64) {
		return c <= limit, float64(min(c, sat)) * 100
	}
}

func runPlan(p *Search) []int {
	var levels []int
	for c, ok := p.Next(); ok; c, ok = p.Next() {
		levels = append(levels, c)
		if len(levels) > 100 {
			break
		}
	}
	return levels
}

func TestAutoPlanFindsTheLimit(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{1, 2, 3, 5, 17, 24, 63, 64, 100, 255} {
		p := NewSearch(256, 1, scripted(limit, 10000))
		levels := runPlan(p)
		// The answer is the highest passing level the search ran, and the
		// level just above it must have run and failed.
		best, ranAbove := 0, false
		for _, c := range levels {
			if c <= limit {
				best = max(best, c)
			}
			ranAbove = ranAbove || c == limit+1
		}
		if best != limit || (limit < 256 && !ranAbove) {
			t.Errorf("limit %d: levels %v: found %d (ran %d: %v)", limit, levels, best, limit+1, ranAbove)
		}
		// log2(max) levels to bracket, log2(range) more to bisect.
		budget := bits.Len(256) + bits.Len(uint(limit)) + 1
		if len(levels) > budget {
			t.Errorf("limit %d: %d levels %v, want at most %d", limit, len(levels), levels, budget)
		}
	}
}

func TestAutoPlanLevelOneFails(t *testing.T) {
	t.Parallel()
	levels := runPlan(NewSearch(256, 1, scripted(0, 100)))
	if len(levels) != 1 || levels[0] != 1 {
		t.Errorf("levels %v, want [1]: nothing passes, nothing to bisect", levels)
	}
}

func TestAutoPlanStopsAtSaturation(t *testing.T) {
	t.Parallel()
	// Without an SLO every level passes: the search doubles until doubling
	// adds less than 10% (saturation at 12: 16 gives 1200 against 800 at 8,
	// 32 gives 1200 against 1200 at 16).
	levels := runPlan(NewSearch(256, 1, scripted(1<<30, 12)))
	want := []int{1, 2, 4, 8, 16, 32}
	if len(levels) != len(want) {
		t.Fatalf("levels %v, want %v", levels, want)
	}
	for i := range want {
		if levels[i] != want[i] {
			t.Fatalf("levels %v, want %v", levels, want)
		}
	}
}

func TestAutoPlanRespectsMaxAndGranularity(t *testing.T) {
	t.Parallel()
	levels := runPlan(NewSearch(48, 1, scripted(1<<30, 1<<30)))
	if last := levels[len(levels)-1]; last != 48 {
		t.Errorf("levels %v: want the search capped at --auto-max 48", levels)
	}
	coarse := runPlan(NewSearch(256, 8, scripted(100, 1<<30)))
	// 1..128 doubling (8 levels), then bisect [64,128] down to 8 apart: 96, 112, 104.
	if len(coarse) != 11 {
		t.Errorf("granularity 8: levels %v, want 11", coarse)
	}
}

func TestAutoPlanStopsWhenNothingIsDelivered(t *testing.T) {
	t.Parallel()
	// Every request fails from C=4 on (aggregate 0, or NaN without any
	// window): the search must not double on to --auto-max.
	dead := func(c int) (bool, float64) {
		if c >= 4 {
			return true, 0
		}
		return true, float64(c) * 100
	}
	levels := runPlan(NewSearch(256, 1, dead))
	if len(levels) > 4 || levels[len(levels)-1] != 3 && levels[len(levels)-1] != 4 {
		t.Errorf("levels %v: want the search to stop around C=4", levels)
	}
}
