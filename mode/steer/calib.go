package steer

import (
	"fmt"

	"github.com/toksweep/toksweep/sweep"
)

// Calibrate is how much shorter a calibration level runs. The levels the
// steering runs before the model is used (the mode's first Warm, and the
// mode's levels while the model's boundary lies past its range), until a
// level fails on the server, are there
// to feed the fit and widen its range, not to judge the boundary: each
// gets a Calibrate-th of the mode's measured requests, by the mode's own
// rule (a closed loop's default of 4 per worker becomes 1 per worker). A
// calibration level that passes is believed; one that fails is measured
// again at full length before anything believes it; the one the answer
// would rest on runs the rest of its requests (settle).
const Calibrate = 4

// Measured is the mode's count of measured requests for level k; a
// Calibrate-th of it, as the mode counts a level given that many, while k
// runs as a calibration level; the rest of it when k continues its
// calibration run (settle). A level bounded by a duration alone
// (sweep.Config.Duration, no Requests) runs its full duration.
func (l *Load) Measured(cfg *sweep.Config, k sweep.LevelKey) int {
	n := l.Load.Measured(cfg, k)
	switch {
	case l.short[k]:
		return l.calibrated(cfg, k, n)
	case l.rest[k]:
		return max(n-l.calibrated(cfg, k, n), 1)
	}
	return n
}

// calibrated is a calibration run's count of level k, whose full count
// is n.
func (l *Load) calibrated(cfg *sweep.Config, k sweep.LevelKey, n int) int {
	c := *cfg
	c.Requests = max((n+Calibrate-1)/Calibrate, 1)
	return min(l.Load.Measured(&c, k), n)
}

// Short reports whether level k runs (or last ran) as a calibration level.
func (l *Load) Short(k sweep.LevelKey) bool { return l.short[k] }

// calibrate marks the key k (when ok) a calibration level, while no
// level has failed on the server: after one has, the levels the mode's
// search runs lie in the server's own bracket, and judge the boundary.
func (l *Load) calibrate(k sweep.LevelKey, ok bool) (sweep.LevelKey, bool) {
	if _, fail := l.bracket(); ok && fail.IsZero() {
		l.short[k] = true
		l.Calibration = append(l.Calibration, k)
	}
	return k, ok
}

// calibrating is the step line's note on the calibration level k.
func (l *Load) calibrating(k sweep.LevelKey, ok bool) string {
	if !ok || !l.short[k] {
		return ""
	}
	return fmt.Sprintf("; calibrating at %s (1/%d of its requests)", k.Name(), Calibrate)
}

// redo is the last level again, at full length, when it ran as a
// calibration level and failed.
func (l *Load) redo() (sweep.LevelKey, bool) {
	if len(l.ran) == 0 {
		return sweep.LevelKey{}, false
	}
	k := l.ran[len(l.ran)-1]
	if pass, ran := l.verdict(k); !l.short[k] || pass || !ran {
		return sweep.LevelKey{}, false
	}
	return l.full(k, "failed as a calibration level")
}

// settle is the server's passing level of the answer again when it ran
// only as a calibration level: no answer rests on one. With Pool, the
// rest of its requests run (Continued), a second run of the level that
// must pass as well, as a level's repeats must; else it runs again at
// full length.
func (l *Load) settle() (sweep.LevelKey, bool) {
	pass, _ := l.bracket()
	switch {
	case !l.short[pass]:
		return sweep.LevelKey{}, false
	case !l.Pool:
		return l.full(pass, "is the answer and ran as a calibration level")
	}
	delete(l.short, pass)
	l.rest[pass] = true
	l.Continued = append(l.Continued, pass)
	l.say(fmt.Sprintf("twin: %s is the answer and ran as a calibration level; measuring the rest of its requests", pass.Name()))
	return pass, true
}

// full hands out k to be measured again at full length, saying why.
func (l *Load) full(k sweep.LevelKey, why string) (sweep.LevelKey, bool) {
	delete(l.short, k)
	l.Remeasured = append(l.Remeasured, k)
	l.say(fmt.Sprintf("twin: %s %s; measuring it at full length", k.Name(), why))
	return k, true
}
