package plan

import (
	"cmp"
	"math"
	"slices"
)

// Point is one level of one configuration on the Pareto chart, as vLLM's
// `vllm bench sweep plot_pareto` draws it: what each user gets against
// what each GPU gives. docs/metrics.md ("Fleet plan") defines both.
type Point struct {
	Run   string
	Level string // the level's name, e.g. "C=8", "rate=16/s"
	// PerUser = T / U: the level's aggregate output tok/s over the
	// requests it held in flight (C, or an open loop's measured mean in
	// flight L), mean over repeats.
	PerUser float64
	// PerGPU = T / G: the aggregate output tok/s over the GPUs of one
	// replica of the configuration.
	PerGPU float64
	// Pass is the level's SLO verdict (every repeat passed); nil when
	// the run had no SLO.
	Pass   *bool
	Front  bool // on the Pareto front: no point has both more per user and more per GPU
	Chosen bool // the level the chosen configuration's plan rests on
}

// points are c's levels as Pareto points, one per level (repeats
// pooled), skipping a level without throughput or without a request in
// flight: its figures are not finite.
func points(c Config) []Point {
	var ps []Point
	for _, g := range groups(c.Stats, c.Levels) {
		l := pool(c.Levels, c.Stats, g)
		if !(l.OutputTPS > 0) || !(l.Users > 0) || !(c.GPUs > 0) {
			continue
		}
		pt := Point{Run: c.Path, Level: g.name, PerUser: l.OutputTPS / l.Users, PerGPU: l.OutputTPS / c.GPUs}
		if judged(c.Stats) {
			pass := failed(c.Stats, &g) == ""
			pt.Pass = &pass
		}
		if finite(pt.PerUser) && finite(pt.PerGPU) {
			ps = append(ps, pt)
		}
	}
	return ps
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// frontEpsilon is plot_pareto's tolerance: a point within it of the best
// tok/s per GPU seen at a higher tok/s per user is still on the front.
const frontEpsilon = 1e-9

// markFront sets Front on the points no other point beats on both axes,
// as plot_pareto finds them: in descending tok/s per user (ties:
// descending tok/s per GPU), a point is on the front when its tok/s per
// GPU is at least the best seen so far (less frontEpsilon).
func markFront(ps []Point) {
	order := make([]int, len(ps))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(ps[b].PerUser, ps[a].PerUser), cmp.Compare(ps[b].PerGPU, ps[a].PerGPU))
	})
	best := math.Inf(-1)
	for _, i := range order {
		if ps[i].PerGPU >= best-frontEpsilon {
			ps[i].Front = true
			best = max(best, ps[i].PerGPU)
		}
	}
}
