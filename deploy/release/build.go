package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// module is the module whose main package is toksweep, and stampVar the
// package whose version and revision variables -ldflags -X sets
// (app.Version reads them first).
const (
	module   = "github.com/toksweep/toksweep"
	stampVar = module + "/app"
)

// allTargets are the release archives' targets.
const allTargets = "linux/amd64,linux/arm64,darwin/amd64,darwin/arm64,windows/amd64,windows/arm64"

// options are the flags both subcommands take.
type options struct {
	version, src, source, targets, caCerts string
	allowDirty                             bool
}

func (o *options) bind(fs *flag.FlagSet) {
	fs.StringVar(&o.version, "version", "", "the version to stamp: the release tag, e.g. v0.1.0 (required)")
	fs.StringVar(&o.src, "src", "../..", "toksweep's checkout (the module root)")
	fs.StringVar(&o.source, "source", "https://github.com/toksweep/toksweep", "the source repository, for the image's org.opencontainers.image.source")
	fs.BoolVar(&o.allowDirty, "allow-dirty", false, "build a tree with uncommitted changes (the version gets +dirty)")
}

// target is one os/arch pair.
type target struct{ OS, Arch string }

func (t target) String() string { return t.OS + "/" + t.Arch }

// stamp is what a build records: the version, the commit and its time (the
// image's creation time and every file's time, so that a commit builds the
// same bytes again).
type stamp struct {
	Version, Revision string
	Time              time.Time
}

var versionRE = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z._+-]*$`)

// check validates the options (linuxOnly: the image's platforms) and reads
// the stamp from the checkout.
func (o *options) check(linuxOnly bool) (stamp, []target, error) {
	if !versionRE.MatchString(o.version) {
		return stamp{}, nil, usageError{fmt.Sprintf("--version %q: give the release tag, e.g. v0.1.0 (letters, digits, . _ + -)", o.version)}
	}
	targets, err := parseTargets(o.targets)
	if err != nil {
		return stamp{}, nil, err
	}
	for _, t := range targets {
		if linuxOnly && t.OS != "linux" {
			return stamp{}, nil, usageError{fmt.Sprintf("--platforms %s: the image is for linux only", t)}
		}
	}
	gomod, err := os.ReadFile(filepath.Join(o.src, "go.mod"))
	if err != nil || !slices.Contains(strings.Split(string(gomod), "\n"), "module "+module) {
		return stamp{}, nil, usageError{fmt.Sprintf("--src %s is not toksweep's module root (its go.mod names %s)", o.src, module)}
	}
	st, err := readStamp(o.src, o.version, o.allowDirty)
	return st, targets, err
}

func parseTargets(list string) ([]target, error) {
	var ts []target
	for s := range strings.SplitSeq(list, ",") {
		goos, arch, ok := strings.Cut(strings.TrimSpace(s), "/")
		t := target{goos, arch}
		if !ok || goos == "" || arch == "" || slices.Contains(ts, t) {
			return nil, usageError{fmt.Sprintf("target %q: give os/arch pairs, each once, e.g. linux/amd64", s)}
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// readStamp reads HEAD's commit and time with git; uncommitted changes to
// tracked files are refused unless allowDirty, which marks the version.
func readStamp(src, version string, allowDirty bool) (stamp, error) {
	out, err := git(src, "show", "-s", "--format=%H %ct", "HEAD")
	if err != nil {
		return stamp{}, err
	}
	rev, secs, _ := strings.Cut(out, " ")
	unix, err := strconv.ParseInt(secs, 10, 64)
	if err != nil {
		return stamp{}, fmt.Errorf("git show: commit time %q: %v", secs, err)
	}
	dirty, err := git(src, "status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return stamp{}, err
	}
	if dirty != "" {
		if !allowDirty {
			return stamp{}, fmt.Errorf("%s has uncommitted changes (git status): commit them, or pass --allow-dirty", src)
		}
		version += "+dirty"
	}
	return stamp{Version: version, Revision: rev, Time: time.Unix(unix, 0).UTC()}, nil
}

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// ldflags strips the symbol tables and stamps the version and revision.
func ldflags(st stamp) string {
	return fmt.Sprintf("-s -w -X %s.version=%s -X %s.revision=%s", stampVar, st.Version, stampVar, st.Revision)
}

// buildBinary builds toksweep for t into the file out: static
// (CGO_ENABLED=0), paths trimmed, stamped. VCS stamping is off: the stamp
// says the commit, and -buildvcs would fail where git refuses the checkout.
func buildBinary(ctx context.Context, src string, st stamp, t target, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags(st), "-o", out, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+t.OS, "GOARCH="+t.Arch)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build for %s: %v\n%s", t, err, stderr.String())
	}
	return nil
}

// readBinary builds toksweep for t in a temporary directory and returns
// its bytes.
func readBinary(ctx context.Context, src string, st stamp, t target) ([]byte, error) {
	dir, err := os.MkdirTemp("", "toksweep-release-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "toksweep")
	if err := buildBinary(ctx, src, st, t, bin); err != nil {
		return nil, err
	}
	return os.ReadFile(bin)
}

// emptyDir makes dir, or accepts it when it exists and is empty: outputs
// never mix with an earlier build's.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return os.MkdirAll(dir, 0o755)
	case err != nil:
		return err
	case len(entries) > 0:
		return fmt.Errorf("%s is not empty: give a new or empty directory", dir)
	}
	return nil
}
