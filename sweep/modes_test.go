package sweep_test

import (
	_ "github.com/toksweep/toksweep/mode/builtin" // the modes' words and ranks
	"github.com/toksweep/toksweep/mode/closed"
	"github.com/toksweep/toksweep/sweep"
)

func init() {
	sweep.ClosedLoad = func(levels ...int) sweep.Load { return closed.Load{Levels: levels} }
}
