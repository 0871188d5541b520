package rundir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// --overwrite replaces only a directory holding a toksweep run and nothing
// else: a run with a stranger's file or directory beside it, a directory
// without a summary.json or lock, and a charts/ with other files are all
// refused in one line, and left as they were (issue 25, item 1: taxes.txt
// and sub/ were deleted). A run with its charts, shard.json and the
// temporaries of an interrupted write is replaced.
func TestOverwriteReplacesOnlyARun(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, dir string)
		ok    bool
	}{
		{"a run", func(t *testing.T, dir string) {
			earlierRun(t, dir)
			write(t, dir, ShardFile, "{}")
			write(t, dir, "."+SummaryFile+".tmp-123", "{")
			write(t, filepath.Join(dir, "charts"), "ttft.svg", "<svg/>")
		}, true},
		{"a run beside taxes.txt", func(t *testing.T, dir string) { earlierRun(t, dir); write(t, dir, "taxes.txt", "x") }, false},
		{"a run beside sub/", func(t *testing.T, dir string) { earlierRun(t, dir); write(t, filepath.Join(dir, "sub"), "f", "x") }, false},
		{"a charts/ with a stranger", func(t *testing.T, dir string) {
			earlierRun(t, dir)
			write(t, filepath.Join(dir, "charts"), "notes.txt", "x")
		}, false},
		{"no summary.json", func(t *testing.T, dir string) { write(t, dir, LevelsFile, "a\n") }, false},
		{"a summary.json link", func(t *testing.T, dir string) {
			write(t, dir, "elsewhere", "{}")
			if err := os.Symlink(filepath.Join(dir, "elsewhere"), filepath.Join(dir, SummaryFile)); err != nil {
				t.Fatal(err)
			}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "run")
			tc.plant(t, dir)
			before := listTree(t, dir)
			d, err := ReserveRunDir(dir, RunDirOptions{Overwrite: true})
			if tc.ok {
				if err != nil {
					t.Fatal(err)
				}
				if err := d.Begin(); err != nil {
					t.Fatal(err)
				}
				d.Close()
				return
			}
			if err == nil {
				d.Begin()
				d.Close()
				t.Fatalf("replaced; the directory now holds %v", listTree(t, dir))
			}
			if !errors.Is(err, ErrRunDirNotRun) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "--overwrite replaces only a toksweep run") {
				t.Errorf("error %q: want one line matching ErrRunDirNotRun", err)
			}
			if after := listTree(t, dir); after != before {
				t.Errorf("the directory changed:\n%s\nto\n%s", before, after)
			}
		})
	}
}

// A planted lock that is not a regular file is never followed, truncated
// or created through, and counts as content for the empty check (issue 25,
// item 2: the PID was written into the link's target).
func TestPlantedLockIsRefused(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"link to a file", "dangling link", "fifo", "directory"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			dir, target := filepath.Join(root, "o"), filepath.Join(root, "precious")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			lock := filepath.Join(dir, LockFile)
			switch kind {
			case "link to a file":
				write(t, root, "precious", "keep me")
				err := os.Symlink(target, lock)
				must(t, err)
			case "dangling link":
				must(t, os.Symlink(target, lock))
			case "fifo":
				must(t, syscall.Mkfifo(lock, 0o644))
			case "directory":
				must(t, os.Mkdir(lock, 0o755))
			}
			for _, opts := range []RunDirOptions{{}, {Overwrite: true}} {
				if d, err := ReserveRunDir(dir, opts); err == nil {
					d.Close()
					t.Errorf("%+v: a directory holding a %s as its lock was reserved", opts, kind)
				}
			}
			if _, err := lockDir(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("lockDir: %v, want a lock that is not a regular file refused", err)
			}
			if release, err := LockRunDir(dir); err == nil {
				release()
				t.Error("LockRunDir took the planted lock")
			}
			b, err := os.ReadFile(target)
			switch {
			case kind == "link to a file" && string(b) != "keep me":
				t.Errorf("the link's target now holds %q", b)
			case kind == "dangling link" && !os.IsNotExist(err):
				t.Errorf("the link's target was created (%v)", err)
			}
		})
	}
}

func write(t *testing.T, dir, name, body string) {
	t.Helper()
	must(t, os.MkdirAll(dir, 0o755))
	must(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// listTree lists every path under dir with its size, for a before/after
// comparison.
func listTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	must(t, filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		b.WriteString(p + " " + fi.Mode().String() + "\n")
		return nil
	}))
	return b.String()
}
