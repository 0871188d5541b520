package plan

import (
	"github.com/toksweep/toksweep/report"
)

// SessionLevel is a multi-turn level's figures in sessions: the unit a
// session run is sized in. A level of a mode that runs no session has
// none (Level.Sessions is nil). docs/metrics.md ("Fleet plan") defines each.
type SessionLevel struct {
	// Concurrent is C, the sessions running at once on the replica, each
	// one turn (request) at a time.
	Concurrent int
	Measured   int     // measured sessions, over every repeat
	TurnsMean  float64 // successful turns per session (session_turns_mean), mean over the repeats that measured a session; 0 if none did
	// PerSecond is Xs = X / TurnsMean, the sessions a replica completes
	// per second: its turns per second over the turns a session takes.
	PerSecond float64
}

// sessionLevel pools the session figures of stats[runs] (one level's
// repeats, of a mode that runs sessions) with X, the level's pooled
// turns per second. A repeat that measured no session adds no turns.
func sessionLevel(stats []report.LevelStats, runs []int, concurrency int, x float64) *SessionLevel {
	sl := &SessionLevel{Concurrent: concurrency}
	var turns []float64
	for _, i := range runs {
		if st := stats[i].Session; st.Sessions > 0 {
			sl.Measured += st.Sessions
			turns = append(turns, st.TurnsMean)
		}
	}
	if m := report.Mean(turns); m > 0 {
		sl.TurnsMean, sl.PerSecond = m, x/m
	}
	return sl
}

// sessionFigures are the plan's answers in sessions, for a session level:
// the concurrent sessions a replica is planned for (C × h), the peak λ
// in sessions per second (λ / turns), and sessions per day per replica.
type sessionFigures struct {
	PlannedConcurrent float64 // C × h
	PeakPerSecond     float64 // λ / TurnsMean
	PerDay            float64 // Xs × 86400
}

func (p Plan) sessionFigures() sessionFigures {
	sl, o := p.Level.Sessions, p.Options
	if sl == nil || !(sl.TurnsMean > 0) {
		return sessionFigures{}
	}
	return sessionFigures{
		PlannedConcurrent: float64(sl.Concurrent) * o.Headroom,
		PeakPerSecond:     o.PeakRPS / sl.TurnsMean,
		PerDay:            sl.PerSecond * SecondsPerDay,
	}
}
