package sweep

import (
	"fmt"
	"strconv"
	"strings"
)

// SessionsMode is multi-turn sessions: a closed loop whose C workers each
// run one conversation after another (Config.Sessions); levels keyed by C,
// counted in sessions.
const SessionsMode = "sessions"

func init() {
	Register(&legacyMode{
		name: SessionsMode, rank: 50,
		selects: func(cfg *Config) bool { return cfg.Sessions != nil },
		keys:    closedKeys(SessionsMode),
		claims: func(l *Level) bool {
			for r := range l.All() {
				return r.Session > 0
			}
			return false
		},
		measured: closedMeasured,
		arrivals: func(cfg *Config, k LevelKey, _, _ int) (Arrivals, error) {
			return sessionLoop(k.Concurrency, cfg.Sessions), nil
		},
		warmConns:  func(k LevelKey) int { return k.Concurrency },
		abortAfter: closedAbortAfter,
		sess:       true,
		words: Words{
			Name:          func(k LevelKey) string { return fmt.Sprintf("C=%d", k.Concurrency) },
			At:            func(k LevelKey) string { return fmt.Sprintf("%d concurrent sessions", k.Concurrency) },
			Unit:          "concurrent sessions",
			Users:         "concurrent sessions",
			Axis:          "concurrent sessions",
			Aggregate:     "all sessions running",
			Caption:       "with C sessions running, each one turn at a time; where doubling C adds little, it has saturated (the knee)",
			ClientLimited: "may have been",
			List:          closedList,
			Head:          "sessions",
			Running:       "concurrent session",
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

// closedList is the sessions' Words.List: their concurrencies after one
// "C=", "C=2,4".
func closedList(ks []LevelKey) string {
	cs := make([]string, len(ks))
	for i, k := range ks {
		cs[i] = strconv.Itoa(k.Concurrency)
	}
	return "C=" + strings.Join(cs, ",")
}
