// Package builtin links the built-in load modes, each registered in its
// package's init: the one place that names them (app imports it; a test
// of a package below the modes imports it from an external test file).
package builtin

import (
	_ "github.com/toksweep/toksweep/mode/closed"   // the closed loop
	_ "github.com/toksweep/toksweep/mode/rate"     // the open loop at offered rates
	_ "github.com/toksweep/toksweep/mode/replay"   // the trace replay
	_ "github.com/toksweep/toksweep/mode/sessions" // multi-turn sessions
)
