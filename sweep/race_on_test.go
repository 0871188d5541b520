//go:build race

package sweep_test

// raceOn: the race detector is on (it multiplies the CPU cost of each
// request; TestReplaySendsOnSchedule judges timing only where it can).
const raceOn = true
