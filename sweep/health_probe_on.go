//go:build !toksweep_noprobe

package sweep

// probeOff is false: every build but bench/scale.sh's probe-off one runs
// the lateness ticker (health_probe_off.go).
const probeOff = false
