package sweep

import "fmt"

// SessionsMode is multi-turn sessions: a closed loop whose C workers each
// run one conversation after another (Config.Sessions); levels keyed by C,
// counted in sessions.
const SessionsMode = "sessions"

func init() {
	RegisterMode(&Mode{
		Name: SessionsMode, Rank: 50,
		Selects: func(cfg *Config) bool { return cfg.Sessions != nil },
		Keys:    closedKeys(SessionsMode),
		Claims: func(l *Level) bool {
			for r := range l.All() {
				return r.Session > 0
			}
			return false
		},
		Measured: closedMeasured,
		Arrivals: func(cfg *Config, k LevelKey, _, _ int) (Arrivals, error) {
			return sessionLoop(k.Concurrency, cfg.Sessions), nil
		},
		WarmConns:  func(k LevelKey) int { return k.Concurrency },
		AbortAfter: closedAbortAfter,
		Sessions:   true,
		Words: Words{
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
