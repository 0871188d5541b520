// Package steer owns the model-steered search (--twin): a sweep.Load that
// runs a mode's own adaptive search for its first levels, then measures
// where a Predictor (a model of the server fitted to the levels so far)
// puts the SLO boundary, until the model's interval lies within the
// search's step and a measurement on the server confirmed it. The levels
// run before the model is used are calibration levels, run with a
// Calibrate-th of their requests (calib.go). A refused model hands the
// rest back to the mode's search, which judges the levels already run
// from their stats. It knows neither the model nor any mode: keys,
// verdicts and predictions are plain data, so every mode that has a
// search is steered without code of its own.
package steer

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/toksweep/toksweep/sweep"
)

// The bounds of the steering.
const (
	// Warm is how many of the mode's own levels run before the first
	// prediction (fewer when its search ends first).
	Warm = 2
	// MaxSteered is how many levels the model may choose; then the mode's
	// search runs the rest.
	MaxSteered = 4
)

// Prediction is what the model says of the boundary, fitted on the levels
// measured so far.
type Prediction struct {
	// Pass is the highest load the model's own search passes, Fail the
	// lowest failing one above it (zero: none).
	Pass, Fail sweep.LevelKey
	// Pinned: the model's slow corner passes Pass and its fast corner
	// fails Fail, so its interval of the boundary lies between the two
	// (narrower than the search's granularity).
	Pinned bool
	// FailPinned: the model's fast corner fails Fail, so the model judges
	// Fail failing without measuring it (its interval is clear of the
	// bound there); only Pass, the answer, is measured.
	FailPinned bool
	// Wait, when set, says why the prediction is not used yet (an
	// extrapolation past the fitted range, a fit the levels so far leave
	// ill-conditioned): the mode's search runs one more level.
	Wait string
	// Refused, when set, says why the model is not used at all: the
	// mode's search runs the rest.
	Refused string
	// Text is what the model predicts, for the step's line ("fitted on
	// C=1,2; predicts C=11 passes, C=12 fails (80% corners agree)").
	Text string
}

// Predictor fits the levels measured so far and predicts the boundary.
type Predictor interface {
	Predict(ctx context.Context) (Prediction, error)
}

// Verdict says whether the level k ran on the server, and whether it
// passed (every repeat met the SLO and, in an open loop, kept up).
type Verdict func(k sweep.LevelKey) (pass, measured bool)

// Load is a mode's Load whose keys the model steers.
type Load struct {
	sweep.Load // the mode's, and its search
	ctx        context.Context
	pred       Predictor
	verdict    Verdict
	say        func(string) // one line per steering step

	ran     []sweep.LevelKey        // every key handed out, in order
	short   map[sweep.LevelKey]bool // the calibration levels not measured in full
	rest    map[sweep.LevelKey]bool // the calibration levels whose rest ran (Continued)
	Steered []sweep.LevelKey        // the keys the model chose
	// Pool: the answer's calibration run is continued for the rest of its
	// requests, not run again at full length (set it without --repeat,
	// whose runs of a level are each full).
	Pool bool
	// Calibration are the keys run as calibration levels, in order;
	// Remeasured those of them run again at full length, Continued those
	// run for the rest of their requests (calib.go).
	Calibration, Remeasured, Continued []sweep.LevelKey
	Confirmed                          sweep.LevelKey // the confirming level (zero: none)
	Last                               Prediction     // the last prediction used
	Fallback                           string         // why the mode's search ran the rest ("": it did not)
	next                               func() (sweep.LevelKey, bool)
	state                              state
	// doubted: the server contradicted the model, so its pins no longer
	// stand for a measurement: both ends of its pair are measured.
	doubted bool
}

type state int

const (
	warming  state = iota // the mode's own first levels
	steering              // the model chooses
	falling               // the mode's search runs the rest
	done
)

var _ sweep.Load = (*Load)(nil)

// New is ld's search steered by pred; verdict judges a level that ran,
// and say writes each step's line. The one context is the sweep's.
func New(ctx context.Context, ld sweep.Load, pred Predictor, verdict Verdict, say func(string)) *Load {
	return &Load{Load: ld, ctx: ctx, pred: pred, verdict: verdict, say: say,
		short: map[sweep.LevelKey]bool{}, rest: map[sweep.LevelKey]bool{}}
}

// OwnPrompts passes on the mode's sweep.Prompter.
func (l *Load) OwnPrompts() bool {
	p, ok := l.Load.(sweep.Prompter)
	return ok && p.OwnPrompts()
}

// Keys iterates over the steered keys: the mode's first Warm, then the
// model's, then (when the model is refused or spent) the mode's again; a
// calibration level that failed, or that the answer would rest on, again
// at full length.
func (l *Load) Keys() func() (sweep.LevelKey, bool) {
	l.next = l.Load.Keys()
	return func() (sweep.LevelKey, bool) {
		k, ok := l.redo()
		if !ok {
			k, ok = l.choose()
		}
		if !ok {
			l.state = done
			k, ok = l.settle()
		}
		if ok {
			l.ran = append(l.ran, k)
		}
		return k, ok
	}
}

// choose is the next key, once the last one handed out has finished.
func (l *Load) choose() (sweep.LevelKey, bool) {
	switch l.state {
	case warming:
		if len(l.ran) < Warm {
			return l.calibrate(l.mode())
		}
		l.state = steering
		return l.steer()
	case steering:
		return l.steer()
	case falling:
		return l.mode()
	}
	return sweep.LevelKey{}, false
}

// mode is the mode's own next key, skipping those already run: its search
// judges them from their stats.
func (l *Load) mode() (sweep.LevelKey, bool) {
	for {
		k, ok := l.next()
		if !ok || !slices.Contains(l.ran, k) {
			return k, ok
		}
	}
}

// fall hands the rest to the mode's search, saying why.
func (l *Load) fall(why string) (sweep.LevelKey, bool) {
	l.Fallback, l.state = why, falling
	l.say(fmt.Sprintf("twin: %s; the search goes on without it", why))
	return l.mode()
}

// steer asks the model and picks what to measure next: where its
// interval straddles the boundary, else its boundary to confirm it.
func (l *Load) steer() (sweep.LevelKey, bool) {
	if !l.Confirmed.IsZero() {
		if pass, _ := l.verdict(l.Confirmed); pass {
			return sweep.LevelKey{}, false // the boundary holds on the server
		}
		l.say(fmt.Sprintf("twin: %s failed on the server; predicting again", l.Confirmed.Name()))
		l.Confirmed, l.doubted = sweep.LevelKey{}, true
	}
	if len(l.Steered) >= MaxSteered {
		return l.fall(fmt.Sprintf("%d levels chosen by the model did not pin the boundary", MaxSteered))
	}
	p, err := l.pred.Predict(l.ctx)
	switch {
	case err != nil && l.ctx.Err() != nil:
		return sweep.LevelKey{}, false // canceled: the sweep ends
	case err != nil:
		return l.fall("the model failed: " + err.Error())
	case p.Refused != "":
		return l.fall("the model is refused: " + p.Refused)
	case p.Wait != "":
		k, ok := l.calibrate(l.mode())
		if !ok {
			l.Fallback = "the mode's search ended before the model was used"
		}
		l.say(fmt.Sprintf("twin: %s; not used yet: %s%s", p.Text, p.Wait, l.calibrating(k, ok)))
		return k, ok
	}
	l.Last = p
	k, why, act := l.pick(p)
	switch act {
	case stop:
		l.say(fmt.Sprintf("twin: %s; %s", p.Text, why))
		return sweep.LevelKey{}, false
	case fallBack:
		return l.fall(p.Text + "; " + why)
	}
	if act == confirm {
		l.Confirmed = k
	}
	l.Steered = append(l.Steered, k)
	l.say(fmt.Sprintf("twin: %s; %s %s", p.Text, why, k.Name()))
	return k, true
}

// action is what a prediction leads to.
type action int

const (
	measure  action = iota // run the key: the interval straddles the boundary there
	confirm                // run the key: the predicted boundary, pinned
	stop                   // the server's levels settle the boundary
	fallBack               // the server disagrees with the model: the mode's search runs the rest
)

// pick is what to do after prediction p: confirm its boundary when the
// interval is pinned, or its failing end is (the model judges that
// neighbour of the answer; while the server has not contradicted the
// model), else measure the end of the straddle not run yet
// (the failing end first: when it passes, the boundary is above the
// model's, and one more level finds it); where the server contradicts
// the model's pair, measure one of the pair's steps beyond it; where the
// model's search stops at a knee below a level that failed on the server,
// measure midway between the server's pass and fail; stop when the
// server's levels already settle the boundary.
func (l *Load) pick(p Prediction) (k sweep.LevelKey, why string, act action) {
	passOK, passRan := l.verdict(p.Pass)
	failOK, failRan := l.verdict(p.Fail)
	if pass, fail, ok := l.settled(p); ok {
		return k, fmt.Sprintf("the server's levels settle it (%s passes, %s fails)", pass.Name(), fail.Name()), stop
	}
	switch {
	case p.Pass.IsZero():
		return k, "it passes no level", fallBack
	case passRan && !passOK:
		return l.beyond(p.Pass, p, -1, p.Pass.Name()+" failed on the server")
	case failRan && failOK:
		return l.beyond(p.Fail, p, +1, p.Fail.Name()+" passed on the server")
	case passRan && p.Fail.IsZero() && l.openAbove(p.Pass):
		if k, ok := l.midway(); ok {
			return k, "none above " + p.Pass.Name() + " fails on the model, but a level failed on the server: measuring midway", measure
		}
		return k, "the server's levels settle it (none lies between its pass and its fail)", stop
	case passRan && ((p.Pinned || p.FailPinned) && !l.doubted || p.Fail.IsZero() || failRan):
		return k, "the server's levels confirm it", stop
	case !passRan && (p.Pinned || p.FailPinned) && !l.doubted:
		return p.Pass, "confirming", confirm
	case !failRan && !p.Fail.IsZero():
		return p.Fail, "measuring", measure
	}
	return p.Pass, "measuring", measure
}

// beyond is the level one of p's steps past k in direction dir (+1 up,
// -1 down), to measure when the server contradicted the model at k; the
// fallback when that level ran or is no load.
func (l *Load) beyond(k sweep.LevelKey, p Prediction, dir int, why string) (sweep.LevelKey, string, action) {
	n := k
	if p.Pass.Load > 0 && p.Fail.Load > 0 {
		n.Load *= math.Pow(p.Fail.Load/p.Pass.Load, float64(dir))
	} else {
		n.Concurrency += dir * (p.Fail.Concurrency - p.Pass.Concurrency)
	}
	if n.Concurrency < 1 && n.Load == 0 || slices.Contains(l.ran, n) {
		return sweep.LevelKey{}, why, fallBack
	}
	l.doubted = true
	return n, why + "; measuring past it", measure
}

// openAbove reports whether a level above k failed on the server: a
// model whose search stops at k (its knee, none above failing) says
// nothing of the levels between.
func (l *Load) openAbove(k sweep.LevelKey) bool {
	_, fail := l.bracket()
	return !fail.IsZero() && fail.Compare(k) > 0
}

// midway is the level halfway through the server's bracket (a closed
// loop's mean concurrency, an open loop's geometric mean load); ok false
// when none lies between or it ran.
func (l *Load) midway() (sweep.LevelKey, bool) {
	pass, fail := l.bracket()
	if pass.IsZero() || fail.IsZero() {
		return sweep.LevelKey{}, false
	}
	m := pass
	if pass.Load > 0 && fail.Load > 0 {
		m.Load = math.Sqrt(pass.Load * fail.Load)
	} else {
		m.Concurrency = (pass.Concurrency + fail.Concurrency) / 2
	}
	return m, m != pass && !slices.Contains(l.ran, m)
}

// Ran is every key handed out, in order.
func (l *Load) Ran() []sweep.LevelKey { return l.ran }

// settled is the server's own bracket (bracket) when it is no wider than
// the model's pair p (its search's step). Then the server's levels
// answer, whatever the model now says.
func (l *Load) settled(p Prediction) (pass, fail sweep.LevelKey, ok bool) {
	if p.Pass.IsZero() || p.Fail.IsZero() {
		return pass, fail, false
	}
	pass, fail = l.bracket()
	return pass, fail, !fail.IsZero() && !pass.IsZero() && width(pass, fail) <= width(p.Pass, p.Fail)
}

// bracket is the server's answer so far: the lowest level that failed
// there (zero: none) and the highest that passed below it.
func (l *Load) bracket() (pass, fail sweep.LevelKey) {
	for _, k := range l.ran {
		if ok, _ := l.verdict(k); !ok && (fail.IsZero() || k.Compare(fail) < 0) {
			fail = k
		}
	}
	for _, k := range l.ran {
		if ok, _ := l.verdict(k); ok && (fail.IsZero() || k.Compare(fail) < 0) && (pass.IsZero() || k.Compare(pass) > 0) {
			pass = k
		}
	}
	return pass, fail
}

// width is how far apart two loads are in their search's terms:
// concurrencies by their difference, an open loop's rates or speeds by
// their ratio.
func width(a, b sweep.LevelKey) float64 {
	if a.Load > 0 && b.Load > 0 {
		return b.Load / a.Load
	}
	return float64(b.Concurrency - a.Concurrency)
}
