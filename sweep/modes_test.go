package sweep_test

import (
	_ "github.com/toksweep/toksweep/mode/builtin" // the modes' words and ranks
	"github.com/toksweep/toksweep/mode/closed"
	"github.com/toksweep/toksweep/mode/rate"
	"github.com/toksweep/toksweep/mode/replay"
	"github.com/toksweep/toksweep/sweep"
)

func init() {
	sweep.ClosedLoad = func(levels ...int) sweep.Load { return closed.Load{Levels: levels} }
	sweep.RateLoad = func(rates []float64, cap int, spec sweep.RateSpec) sweep.Load {
		return &rate.Load{Rates: rates, Cap: cap, Spec: spec}
	}
	sweep.ReplayLoad = func(rp *sweep.Replay, speeds []float64, cap int) sweep.Load {
		return &replay.Load{Trace: rp, Speeds: speeds, Cap: cap}
	}
}
