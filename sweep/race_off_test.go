//go:build !race

package sweep_test

// raceOn: the race detector is on (see race_on_test.go).
const raceOn = false
