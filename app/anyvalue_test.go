package app

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestNoCrashOnAnyValue gives every sweep flag a set of hostile values. No
// value may crash toksweep: each run ends with exit 1 or 2 and one line.
// The target is a closed port, so a value that passes fails at pre-flight.
// Each flag's runs write under a temporary --out of their own, so the test
// runs beside the others; --out's own values are TestNoCrashOnAnyOut's.
// Each value the flag takes runs the built binary, a process of its own: a
// crash is its exit status and its stderr, as a user would see them. A
// value the flag's parser refuses (flagParses) never reaches toksweep's
// own code: urfave/cli refuses it and flagProblem words the line, so it
// runs in process (runCLI), as do values holding a NUL. (All 880 runs in
// process under -race once took about 60 s of CPU, most of it urfave/cli's
// flag-name regexp, flags² times a run; namedFlag keeps the names now.)
// The flags run one after another, leaving the other core to the tests
// that keep time.
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
			noCrashValues(t, bin, "", url, f, "--out", filepath.Join(t.TempDir(), "run"))
		})
	}
}

// TestNoCrashOnAnyOut is TestNoCrashOnAnyValue for --out.
// An empty --out means results/ in the working directory: the runs work
// in a temporary one.
func TestNoCrashOnAnyOut(t *testing.T) {
	t.Parallel()
	noCrashValues(t, buildBinary(t), t.TempDir(), closedURL(t), findFlag(sweepFlags(&options{}), "out"))
}

// hostileValues are what TestNoCrashOnAnyValue gives every flag.
var hostileValues = []string{"", "0", "-1", "99999999999999999999", "9223372036854775807", "-9223372036854775808",
	"NaN", "-Inf", "x", ",,", "1,,2", "-5s", "1ns", "\x00", "é☃", strings.Repeat("9", 400)}

// noCrashValues runs a sweep of url with each hostile value of flag f
// (after extra) and checks it ends with exit 1 or 2 and one line: the
// binary bin in dir (empty: the test's own) when f takes the value, in
// process when it refuses it or the value holds a NUL.
func noCrashValues(t *testing.T, bin, dir, url string, f cli.Flag, extra ...string) {
	t.Helper()
	name := f.Names()[0]
	for _, v := range hostileValues {
		args := append([]string{"sweep", "--url", url, "--connect-timeout", "1s", "--request-timeout", "2s", "--levels", "1", "--requests", "1"}, extra...)
		args = append(args, "--"+name+"="+v)
		var code int
		var stdout, stderr string
		// No command line can hold a NUL.
		if strings.ContainsRune(v, 0) || !flagParses(f, v) {
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

// flagParses reports whether f's own parser, the one urfave/cli parses
// the command line with, takes v. f is applied to a flag set of its own,
// so a Destination it has is written: give it one no run reads.
func flagParses(f cli.Flag, v string) bool {
	set := flag.NewFlagSet("", flag.ContinueOnError)
	set.SetOutput(io.Discard)
	if err := f.Apply(set); err != nil {
		return true // the run will say
	}
	return set.Parse([]string{"--" + f.Names()[0] + "=" + v}) == nil
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
