package atomicfile

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

var errFull = errors.New("no space left (injected)")

// fill writes the first n bytes of content and then fails, as a disk that
// fills up does (all of it when n covers it).
func fill(n int, content []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		if n >= len(content) {
			_, err := w.Write(content)
			return err
		}
		if _, err := w.Write(content[:n]); err != nil {
			return err
		}
		return errFull
	}
}

func TestWriteReplacesWholeOrNotAtAll(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "chart.png")
	old := []byte("the earlier file\n")
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	next := bytes.Repeat([]byte("new bytes "), 1000)
	// A write that fails part way leaves the earlier file and no temporary.
	err := Write(path, fill(len(next)/2, next))
	if !errors.Is(err, errFull) {
		t.Fatalf("Write: %v, want the injected error", err)
	}
	checkDir(t, dir, map[string][]byte{"chart.png": old})
	// A write that succeeds replaces the file, mode 0644 under umask 022.
	if err := Write(path, fill(len(next), next)); err != nil {
		t.Fatal(err)
	}
	checkDir(t, dir, map[string][]byte{"chart.png": next})
	if fi, _ := os.Stat(path); fi.Mode().Perm()&0o044 == 0 && runtime.GOOS != "windows" {
		t.Errorf("mode %v: not readable by others", fi.Mode())
	}
	// A new file is created the same way.
	if err := WriteBytes(filepath.Join(dir, "new.svg"), []byte("svg")); err != nil {
		t.Fatal(err)
	}
	checkDir(t, dir, map[string][]byte{"chart.png": next, "new.svg": []byte("svg")})
}

func TestWriteNewNeverReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.json")
	if err := WriteNew(path, fill(3, []byte("one"))); err != nil {
		t.Fatal(err)
	}
	checkDir(t, dir, map[string][]byte{"model.json": []byte("one")})
	// A second write finds the file: it fails, and leaves no temporary.
	if err := WriteNew(path, fill(3, []byte("two"))); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("WriteNew over a file: %v, want fs.ErrExist", err)
	}
	checkDir(t, dir, map[string][]byte{"model.json": []byte("one")})
	// A write that fails part way leaves nothing.
	other := filepath.Join(dir, "other.json")
	if err := WriteNew(other, fill(1, []byte("abc"))); !errors.Is(err, errFull) {
		t.Fatalf("WriteNew: %v, want the injected error", err)
	}
	checkDir(t, dir, map[string][]byte{"model.json": []byte("one")})
}

// checkDir fails unless dir holds exactly want.
func checkDir(t *testing.T, dir string, want map[string][]byte) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(want) {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("directory holds %v, want %d files (no temporary left)", names, len(want))
	}
	for name, b := range want {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("%s: %d bytes (%v), want %d bytes as written", name, len(got), err, len(b))
		}
	}
}

func TestQuiesceWaitsForTheWriteInProgress(t *testing.T) {
	end := Begin()
	var ended atomic.Bool
	go func() {
		time.Sleep(100 * time.Millisecond)
		ended.Store(true)
		end()
	}()
	if !Quiesce(10 * time.Second) {
		t.Fatal("Quiesce gave up while the write was ending")
	}
	if !ended.Load() {
		t.Error("Quiesce returned before the write ended")
	}
	// A write that would start now waits for the exit, for good (the
	// goroutine is left blocked).
	started := make(chan bool)
	go func() { Begin(); close(started) }()
	select {
	case <-started:
		t.Error("a write started after Quiesce")
	case <-time.After(50 * time.Millisecond):
	}
	closing.Store(false) // the test process goes on
	inFlight.Unlock()

	end = Begin()
	defer end()
	defer closing.Store(false)
	start := time.Now()
	if Quiesce(50 * time.Millisecond) {
		t.Fatal("Quiesce returned true while a write was still in progress")
	}
	if took := time.Since(start); took < 50*time.Millisecond {
		t.Errorf("Quiesce gave up after %v, before its timeout", took)
	}
}

// TestFullDisk writes on a real full file system: a 64 KiB tmpfs (root
// only; skipped where it cannot be mounted). A failed Append leaves the file
// as it was (no partial line), and a failed Write leaves no partial file.
func TestFullDisk(t *testing.T) {
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("needs root on Linux to mount a tmpfs")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })

	path := filepath.Join(dir, "requests.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	first := []byte(`{"level":1}` + "\n")
	if err := Append(f, first); err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte(`{"a record that does not fit":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}`+"\n"), 4096) // ~300 KB
	if err := Append(f, big); err == nil {
		t.Fatal("Append of 300 KB onto a 64 KiB file system succeeded")
	}
	checkDir(t, dir, map[string][]byte{"requests.jsonl": first})
	if err := Append(f, first); err != nil { // appends go on at the right offset
		t.Fatal(err)
	}
	both := append(append([]byte{}, first...), first...)
	if err := WriteBytes(filepath.Join(dir, "chart.png"), big); err == nil {
		t.Fatal("Write of 300 KB onto a 64 KiB file system succeeded")
	}
	checkDir(t, dir, map[string][]byte{"requests.jsonl": both})
}

// TestMissingDirectoryNamesTheFile: a file asked for in a directory that
// does not exist fails naming that file, not the temporary beside it, and
// the error is still fs.ErrNotExist.
func TestMissingDirectoryNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nodir", "m.json")
	for name, write := range map[string]func() error{
		"Write":    func() error { return WriteBytes(path, []byte("x")) },
		"WriteNew": func() error { return WriteNew(path, func(io.Writer) error { return nil }) },
	} {
		err := write()
		if err == nil || !errors.Is(err, fs.ErrNotExist) || err.Error() != "create "+path+": no such file or directory" {
			t.Errorf("%s: %v, want create %s: no such file or directory", name, err, path)
		}
	}
}
