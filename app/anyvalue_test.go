package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoCrashOnAnyValue gives every sweep flag a set of hostile values. No
// value may crash toksweep: each run ends with exit 1 or 2 and one line.
// The target is a closed port, so a value that passes fails at pre-flight.
// Each flag's runs write under a temporary --out of their own, so the test
// runs beside the others; --out's own values are TestNoCrashOnAnyOut's.
// The flags run one after another: the 864 runs are CPU-bound under -race,
// and on one core they leave the other to the tests that keep time.
func TestNoCrashOnAnyValue(t *testing.T) {
	t.Parallel()
	url := closedURL(t)
	for _, f := range sweepFlags(&options{}) {
		name := f.Names()[0]
		switch name {
		case "sim", "sim-preset":
			continue // starts the simulator: covered by the sim tests
		case "out":
			continue // TestNoCrashOnAnyOut
		}
		t.Run(name, func(t *testing.T) {
			noCrashValues(t, url, name, "--out", filepath.Join(t.TempDir(), "run"))
		})
	}
}

// TestNoCrashOnAnyOut is TestNoCrashOnAnyValue for --out.
func TestNoCrashOnAnyOut(t *testing.T) {
	t.Chdir(t.TempDir()) // an empty --out means results/ in the working directory
	noCrashValues(t, closedURL(t), "out")
}

// hostileValues are what TestNoCrashOnAnyValue gives every flag.
var hostileValues = []string{"", "0", "-1", "99999999999999999999", "9223372036854775807", "-9223372036854775808",
	"NaN", "-Inf", "x", ",,", "1,,2", "-5s", "1ns", "\x00", "é☃", strings.Repeat("9", 400)}

// noCrashValues runs a sweep of url with each hostile value of --name
// (after extra) and checks it ends with exit 1 or 2 and one line.
func noCrashValues(t *testing.T, url, name string, extra ...string) {
	t.Helper()
	for _, v := range hostileValues {
		args := append([]string{"sweep", "--url", url, "--connect-timeout", "1s", "--request-timeout", "2s", "--levels", "1", "--requests", "1"}, extra...)
		args = append(args, "--"+name+"="+v)
		code, stdout, stderr := runCLI(t, context.Background(), args...)
		if code != ExitUsage && code != ExitFailure {
			t.Errorf("--%s=%q: exit %d\n%s", name, v, code, stderr)
		}
		if ls := lines(stderr); len(ls) != 1 {
			t.Errorf("--%s=%q: stderr has %d lines, want 1:\n%s", name, v, len(ls), stderr)
		}
		noCrash(t, stdout+stderr)
	}
}
