//go:build unix

package app

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestRaiseNoFile(t *testing.T) {
	t.Parallel()
	got := raiseNoFile()
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		t.Fatal(err)
	}
	if got != uint64(r.Cur) || r.Cur != r.Max {
		t.Errorf("raiseNoFile() = %d; limit now soft %d, hard %d: want soft = hard = returned", got, r.Cur, r.Max)
	}
}

// TestFDLimitEndToEnd runs the built binary under a shell's 'ulimit -n',
// which lowers the hard limit too, so toksweep cannot raise it: a sweep
// to 200 streams with the simulator in process (464 descriptors) must stop
// before any request, in one line naming the limit and the fix, and leave
// no run directory.
func TestFDLimitEndToEnd(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	bin := buildBinary(t)
	out := filepath.Join(dir, "run")
	cmd := exec.Command(sh, "-c", `ulimit -n 200 && exec "$0" sweep --charts svg --sim --levels 1,200 --requests 200 --out "$1"`, bin, out)
	stderr, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != ExitFailure {
		t.Fatalf("exit: %v, want status %d; output:\n%s", err, ExitFailure, stderr)
	}
	msg := strings.TrimSpace(string(stderr))
	if strings.Count(msg, "\n") != 0 || !strings.Contains(msg, "limit is 200") || !strings.Contains(msg, "ulimit -n 464") {
		t.Errorf("want one line naming the limit (200) and the fix (ulimit -n 464), got:\n%s", msg)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("run directory %s: %v, want none", out, err)
	}
}
