//go:build toksweep_noprobe

package sweep

// probeOff disables the lateness ticker, for bench/scale.sh's observer
// runs only (go build -tags toksweep_noprobe): the timer-late figures stay
// zero. No release build sets the tag.
const probeOff = true
