package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// testVersion is the version the tests build with when .ci/run has not
// built the outputs already.
const testVersion = "v0.0.0-test"

// built are the outputs under test: the OCI layout, the archives'
// directory and the version they were stamped with. .ci/run builds them
// with the commands deploy/kubernetes/README.md shows and names them in
// RELEASE_LAYOUT, RELEASE_DIST and RELEASE_VERSION; without those, TestMain
// builds them the same way (run, as `go run .` does) in a temporary
// directory.
var built struct {
	layout, dist, version, revision string
}

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	rev, err := git("../..", "rev-parse", "HEAD")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	built.revision = rev
	built.layout, built.dist, built.version = os.Getenv("RELEASE_LAYOUT"), os.Getenv("RELEASE_DIST"), os.Getenv("RELEASE_VERSION")
	if built.layout == "" && built.dist == "" {
		tmp, err := os.MkdirTemp("", "release-test-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(tmp)
		if err := buildForTests(tmp); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	if built.layout == "" || built.dist == "" || built.version == "" {
		fmt.Fprintln(os.Stderr, "set RELEASE_LAYOUT, RELEASE_DIST and RELEASE_VERSION together, or none")
		return 2
	}
	return m.Run()
}

// buildForTests builds the image and the host's archive into tmp.
func buildForTests(tmp string) error {
	built.layout, built.dist, built.version = filepath.Join(tmp, "image"), filepath.Join(tmp, "dist"), testVersion
	dirty, err := git("../..", "status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return err
	}
	args := []string{"--version", testVersion, "--allow-dirty"}
	if dirty != "" {
		built.version += "+dirty"
	}
	ctx := context.Background()
	if err := run(ctx, append([]string{"image", "--layout", built.layout}, args...), io.Discard); err != nil {
		return err
	}
	return run(ctx, append([]string{"archives", "--out", built.dist, "--targets", hostLinux()}, args...), io.Discard)
}

// hostLinux is the linux target of this machine's architecture: the
// image's platform and the archive the tests can run.
func hostLinux() string { return "linux/" + runtime.GOARCH }

// wantVersion is what `toksweep --version` prints for the built outputs.
func wantVersion() string {
	return fmt.Sprintf("toksweep version %s (revision %s)\n", built.version, built.revision[:12])
}

// checkVersion runs `toksweep --version` and checks that it prints the
// stamped version and revision: the binary bin, or, when root is a
// filesystem extracted from the image and the test runs as root (CI does),
// the image's entrypoint in a chroot of it as user 65532, with the image's
// environment.
func checkVersion(t *testing.T, bin, root string, env []string) {
	t.Helper()
	cmd := exec.Command(bin, "--version")
	if root != "" && os.Geteuid() == 0 {
		cmd = exec.Command(entrypoint, "--version")
		cmd.Dir, cmd.Env = "/", env
		cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: root, Credential: &syscall.Credential{Uid: 65532, Gid: 65532}}
		t.Logf("running %s in a chroot of %s as user 65532", entrypoint, root)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s --version: %v\n%s", bin, err, out)
	}
	if string(out) != wantVersion() {
		t.Errorf("%s --version printed %q, want %q", bin, out, wantVersion())
	}
}

func TestBadCommandLines(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		nil,
		{"publish"},
		{"image", "--layout", t.TempDir()},
		{"image", "--version", "v1 2", "--layout", t.TempDir()},
		{"image", "--version", "v1.2.0"},
		{"image", "--version", "v1.2.0", "--layout", t.TempDir(), "--platforms", "linux/amd64,linux/amd64"},
		{"image", "--version", "v1.2.0", "--layout", t.TempDir(), "--platforms", "darwin/arm64"},
		{"image", "--version", "v1.2.0", "--layout", t.TempDir(), "--src", "."},
		{"archives", "--version", "v1.2.0"},
		{"archives", "--version", "v1.2.0", "--out", t.TempDir(), "--targets", "linux"},
		{"archives", "--version", "v1.2.0", "--out", t.TempDir(), "extra"},
	} {
		err := run(context.Background(), args, io.Discard)
		if _, ok := err.(usageError); !ok {
			t.Errorf("run(%q) = %v, want a usage error", args, err)
		}
	}
}

// TestOutputDirMustBeNew: a build never mixes with an earlier one's files.
func TestOutputDirMustBeNew(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "old"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := run(context.Background(), []string{"archives", "--version", "v1.2.0", "--allow-dirty", "--targets", hostLinux(), "--out", dir}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("archives into a non-empty directory: %v, want refused", err)
	}
}
