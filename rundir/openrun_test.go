package rundir

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// copySmallRun copies ../testdata/runs/small into a new directory.
func copySmallRun(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range []string{SummaryFile, LevelsFile, RequestsFile} {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "runs", "small", n))
		must(t, err)
		must(t, os.WriteFile(filepath.Join(dir, n), b, 0o644))
	}
	return dir
}

// A run file that is /dev/zero or a FIFO is refused in one line, at once,
// by every reader of a run (issue 25, item 4: /dev/zero crashed report,
// merge and plan, and a FIFO hung them).
func TestRunFilesMustBeRegular(t *testing.T) {
	t.Parallel()
	for _, name := range []string{SummaryFile, RequestsFile, ShardFile} {
		for _, kind := range []string{"/dev/zero", "fifo"} {
			dir := copySmallRun(t)
			path := filepath.Join(dir, name)
			os.Remove(path)
			if kind == "fifo" {
				must(t, syscall.Mkfifo(path, 0o644))
			} else {
				must(t, os.Symlink("/dev/zero", path))
			}
			done := make(chan error, 3)
			go func() {
				if name == ShardFile {
					_, err := ReadShardInfo(dir)
					done <- err
					return
				}
				_, err1 := ReadRunDir(dir)
				done <- err1
				_, err2 := ScanRunDir(dir)
				done <- err2
			}()
			for range map[bool]int{true: 1, false: 2}[name == ShardFile] {
				select {
				case err := <-done:
					if err == nil || !strings.Contains(err.Error(), "not a regular file") || strings.Contains(err.Error(), "\n") {
						t.Errorf("%s as %s: %v, want one line saying it is not a regular file", name, kind, err)
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("%s as %s: the read hung", name, kind)
				}
			}
		}
	}
}

// One line longer than the bound is an error, after reading no more than
// the bound and a buffer of it; lines within it read whole.
func TestRecordLineIsBounded(t *testing.T) {
	t.Parallel()
	br := bufio.NewReaderSize(strings.NewReader(strings.Repeat("x", 100)+"\nshort\n"), 16)
	if _, err := readLine(br, 64); !errors.Is(err, errLongLine) {
		t.Errorf("a 100-byte line under a 64-byte bound: %v", err)
	}
	br = bufio.NewReaderSize(strings.NewReader(strings.Repeat("y", 60)+"\n"), 16)
	if line, err := readLine(br, 64); err != nil || len(line) != 61 {
		t.Errorf("a 61-byte line: %d bytes, %v", len(line), err)
	}
	big := strings.Repeat("z", MaxRunFile+1)
	dir := copySmallRun(t)
	must(t, os.WriteFile(filepath.Join(dir, SummaryFile), []byte(big), 0o644))
	if _, err := ReadRunDir(dir); err == nil || !strings.Contains(err.Error(), "toksweep's bound") {
		t.Errorf("a summary.json over the bound: %v", err)
	}
}
