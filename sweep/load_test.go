package sweep

// ClosedLoad is the closed loop's Load of those levels (mode/closed's),
// set by modes_test.go: the mode packages import sweep, so this package's
// own tests reach them through the external test package.
var ClosedLoad func(levels ...int) Load
