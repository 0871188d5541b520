package app

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoCrashOnAnyValue gives every sweep flag a set of hostile values. No
// value may crash toksweep: each run ends with exit 1 or 2 and one line.
// The target is a closed port, so a value that passes fails at pre-flight.
// Each flag's runs write under a temporary --out of their own, so the test
// runs beside the others; --out's own values are TestNoCrashOnAnyOut's.
// Each run is the built binary, a process of its own: a crash is its exit
// status and its stderr, as a user would see them. (In process under
// -race the 880 runs took about 60 s of CPU, most of it urfave/cli's
// flag-name regexp, flags² times a run; as processes built without -race
// they take a few seconds.) The flags run one after another, leaving the
// other core to the tests that keep time.
func TestNoCrashOnAnyValue(t *testing.T) {
	t.Parallel()
	bin, url := buildBinary(t), closedURL(t)
	for _, f := range sweepFlags(&options{}) {
		name := f.Names()[0]
		switch name {
		case "sim", "sim-preset":
			continue // starts the simulator: covered by the sim tests
		case "out":
			continue // TestNoCrashOnAnyOut
		}
		t.Run(name, func(t *testing.T) {
			noCrashValues(t, bin, "", url, name, "--out", filepath.Join(t.TempDir(), "run"))
		})
	}
}

// TestNoCrashOnAnyOut is TestNoCrashOnAnyValue for --out.
// An empty --out means results/ in the working directory: the runs work
// in a temporary one.
func TestNoCrashOnAnyOut(t *testing.T) {
	t.Parallel()
	noCrashValues(t, buildBinary(t), t.TempDir(), closedURL(t), "out")
}

// hostileValues are what TestNoCrashOnAnyValue gives every flag.
var hostileValues = []string{"", "0", "-1", "99999999999999999999", "9223372036854775807", "-9223372036854775808",
	"NaN", "-Inf", "x", ",,", "1,,2", "-5s", "1ns", "\x00", "é☃", strings.Repeat("9", 400)}

// noCrashValues runs the binary bin in dir (empty: the test's own) on a
// sweep of url with each hostile value of --name (after extra) and checks
// it ends with exit 1 or 2 and one line.
func noCrashValues(t *testing.T, bin, dir, url, name string, extra ...string) {
	t.Helper()
	for _, v := range hostileValues {
		args := append([]string{"sweep", "--url", url, "--connect-timeout", "1s", "--request-timeout", "2s", "--levels", "1", "--requests", "1"}, extra...)
		args = append(args, "--"+name+"="+v)
		var code int
		var stdout, stderr string
		if strings.ContainsRune(v, 0) { // no command line can hold a NUL: in process
			code, stdout, stderr = runCLI(t, context.Background(), args...)
		} else {
			code, stdout, stderr = runBinary(t, bin, dir, args...)
		}
		if code != ExitUsage && code != ExitFailure {
			t.Errorf("--%s=%q: exit %d\n%s", name, v, code, stderr)
		}
		if ls := lines(stderr); len(ls) != 1 {
			t.Errorf("--%s=%q: stderr has %d lines, want 1:\n%s", name, v, len(ls), stderr)
		}
		noCrash(t, stdout+stderr)
	}
}

// runBinary runs bin with args (as toksweepCmd gives them) in dir and
// returns its exit status and output; a run that cannot start or is killed
// fails the test.
func runBinary(t *testing.T, bin, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := toksweepCmd(bin, args...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		code = exit.ExitCode()
	default:
		t.Fatalf("%v: %v\n%s", args, err, errOut.String())
	}
	return code, out.String(), errOut.String()
}
