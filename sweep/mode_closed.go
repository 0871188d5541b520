package sweep

import (
	"fmt"
	"strconv"
	"strings"
)

// The closed loop: C workers, each sending its next request when its last
// one ends (ClosedLoop); levels keyed by C.
func init() {
	RegisterMode(&Mode{
		Name: ClosedMode, Rank: 100,
		Selects:    func(*Config) bool { return true },
		Keys:       closedKeys(ClosedMode),
		Claims:     func(*Level) bool { return true },
		Measured:   closedMeasured,
		Arrivals:   func(_ *Config, k LevelKey, _, _ int) (Arrivals, error) { return ClosedLoop(k.Concurrency), nil },
		WarmConns:  func(k LevelKey) int { return k.Concurrency },
		AbortAfter: closedAbortAfter,
		Words: Words{
			Name:          func(k LevelKey) string { return fmt.Sprintf("C=%d", k.Concurrency) },
			At:            func(k LevelKey) string { return fmt.Sprintf("concurrency %d", k.Concurrency) },
			Unit:          "concurrent users",
			Users:         "concurrent users",
			Axis:          "concurrency (requests in flight)",
			Aggregate:     "all C in flight",
			Caption:       "with C requests in flight; where doubling C adds little, it has saturated (the knee)",
			ClientLimited: "may have been",
			List:          closedList,
			Head:          "C",
		},
	})
}

// closedKeys iterates over a closed loop's concurrencies (Plan, else
// Levels) as keys of mode name.
func closedKeys(name string) func(cfg *Config) func() (LevelKey, bool) {
	return func(cfg *Config) func() (LevelKey, bool) {
		plan := cfg.Plan
		if plan == nil {
			plan = &fixedPlan{levels: cfg.Levels}
		}
		return func() (LevelKey, bool) {
			c, ok := plan.Next()
			return LevelKey{Mode: name, Concurrency: c}, ok
		}
	}
}

// closedMeasured: the requests given, at least C of them (one per
// worker), else AutoRequests(C).
func closedMeasured(cfg *Config, k LevelKey) int {
	if cfg.Requests <= 0 {
		return AutoRequests(k.Concurrency)
	}
	return max(cfg.Requests, k.Concurrency)
}

// closedAbortAfter: every worker's first request.
func closedAbortAfter(k LevelKey) int { return max(k.Concurrency, 1) }

// closedList is the closed loop's and the sessions' Words.List: their
// concurrencies after one "C=", "C=2,4".
func closedList(ks []LevelKey) string {
	cs := make([]string, len(ks))
	for i, k := range ks {
		cs[i] = strconv.Itoa(k.Concurrency)
	}
	return "C=" + strings.Join(cs, ",")
}
