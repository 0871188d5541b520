package sweep

import (
	"fmt"
	"strings"
)

// ReplayMode is a trace replayed at speeds (Config.Mode "replay",
// Config.ModeSpec a *Replay, replay.go): each level sends the trace's
// requests at their instants over its speed, follow-ups no earlier than
// their parent's end, at most Config.MaxConcurrency in flight. Levels are
// keyed by the speed (LevelKey.Load, the levels' "rate" column) and the
// cap; the offered rate, speed × the trace's mean rate, is a figure. Its
// records name the mode (Record.Mode), so that a saved replay level is
// recognised (Claims).
const ReplayMode = "replay"

func init() {
	Register(&legacyMode{
		name: ReplayMode, rank: 20, open: true, marks: true,
		selects: func(cfg *Config) bool { return cfg.Mode == ReplayMode },
		keys:    replayKeys,
		claims: func(l *Level) bool {
			for r := range l.All() {
				return r.Mode == ReplayMode
			}
			return false
		},
		measured: func(cfg *Config, _ LevelKey) int {
			return replaySpec(cfg).measured(cfg.Warmup, cfg.Requests)
		},
		arrivals: func(cfg *Config, k LevelKey, _, repeat int) (Arrivals, error) {
			rp := replaySpec(cfg)
			if rp == nil || !(k.Load > 0) {
				return nil, fmt.Errorf("sweep: replay level %s: no trace or no speed", k.Name())
			}
			return replayLoop(rp, k.Load, levelSalt(k.Load, repeat)), nil
		},
		// The cap, else 64 (the rate mode's most): a trace's bursts then
		// find their connections open, not dialled on the clock.
		warmConns: func(k LevelKey) int {
			if !uncapped(k) {
				return k.Concurrency
			}
			return 64
		},
		abortAfter: openAbortAfterOf,
		unbounded:  uncapped,
		words: Words{
			Name:          replayName,
			At:            func(k LevelKey) string { return fmt.Sprintf("replay speed %g×", k.Load) },
			Unit:          "replay speed",
			Users:         "concurrent users",
			Axis:          "replay speed (× the trace's rate)",
			Aggregate:     "at the replay speed",
			Caption:       "at each replay speed of the trace; where doubling the speed adds little, it has saturated (the knee)",
			ClientLimited: "were", ClientLimitedOne: "was",
			Load: replayLoad,
			// The level line's name says the speed: only the rate.
			Offered: func(_ LevelKey, offered float64) string {
				if !(offered > 0) {
					return ""
				}
				return fmt.Sprintf("offered %.3g req/s", offered)
			},
			Level: "replay speed", Levels: "replay speeds",
			Head: "speed×",
		},
	})
}

// replaySpec is the sweep's *Replay (Config.ModeSpec); nil if none.
func replaySpec(cfg *Config) *Replay {
	rp, _ := cfg.ModeSpec.(*Replay)
	return rp
}

// replayKeys iterates over the speeds: the planner's choices, else the list.
func replayKeys(cfg *Config) func() (LevelKey, bool) {
	rp := replaySpec(cfg)
	key := func(s float64) LevelKey { return LevelKey{Mode: ReplayMode, Concurrency: cfg.MaxConcurrency, Load: s} }
	if rp == nil {
		return func() (LevelKey, bool) { return LevelKey{}, false }
	}
	if rp.Plan != nil {
		return func() (LevelKey, bool) {
			s, ok := rp.Plan.NextRate()
			return key(s), ok
		}
	}
	i := 0
	return func() (LevelKey, bool) {
		if i >= len(rp.Speeds) {
			return LevelKey{}, false
		}
		i++
		return key(rp.Speeds[i-1]), true
	}
}

// replayName is "speed=2×", with its cap "speed=2× C≤8".
func replayName(k LevelKey) string {
	name := fmt.Sprintf("speed=%g×", k.Load)
	if !uncapped(k) {
		name += fmt.Sprintf(" C≤%d", k.Concurrency)
	}
	return name
}

// replayLoad is the replay mode's Words.Load: "speed 2×", then in brackets
// the offered rate the level realised and the note, "speed 2× (offered
// 24.3 req/s, open loop)".
func replayLoad(k LevelKey, offered float64, note string) string {
	var in []string
	if offered > 0 {
		in = append(in, fmt.Sprintf("offered %.3g req/s", offered))
	}
	if note != "" {
		in = append(in, note)
	}
	if len(in) == 0 {
		return fmt.Sprintf("speed %g×", k.Load)
	}
	return fmt.Sprintf("speed %g× (%s)", k.Load, strings.Join(in, ", "))
}
