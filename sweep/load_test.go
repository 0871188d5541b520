package sweep

// ClosedLoad is the closed loop's Load of those levels (mode/closed's),
// set by modes_test.go: the mode packages import sweep, so this package's
// own tests reach them through the external test package.
var ClosedLoad func(levels ...int) Load

// RateLoad is the rate mode's Load (mode/rate's) of those rates, cap and
// arrival spec; ReplayLoad the replay's (mode/replay's) of a trace at
// those speeds and cap. Both are set by modes_test.go, as ClosedLoad.
var (
	RateLoad   func(rates []float64, cap int, spec RateSpec) Load
	ReplayLoad func(rp *Replay, speeds []float64, cap int) Load
)
