package atomicfile

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// Write replaces path with what fill writes: fill writes into a temporary
// file beside path (same directory, so the rename is atomic), which is
// synced and renamed over path. Readers see the old file or the new one,
// never a part. On any error the temporary file is removed and path is left
// as it was. The file gets mode 0644 (before umask).
func Write(path string, fill func(io.Writer) error) error {
	return write(path, fill, os.Rename)
}

// WriteNew creates path with what fill writes, as Write does, but never
// replaces a file: the temporary file is hard-linked to path, which fails
// (with an error that is fs.ErrExist) when path exists, even if it
// appeared while fill wrote. Readers see no file or the whole one.
func WriteNew(path string, fill func(io.Writer) error) error {
	return write(path, fill, func(tmp, path string) error {
		err := os.Link(tmp, path)
		if rerr := os.Remove(tmp); err == nil {
			err = rerr
		}
		return err
	})
}

// write fills a temporary file beside path and puts it in place with
// place (a rename, or a link).
func write(path string, fill func(io.Writer) error, place func(tmp, path string) error) (err error) {
	defer Begin()()
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if pe, ok := err.(*fs.PathError); ok {
		return &fs.PathError{Op: "create", Path: path, Err: pe.Err} // the file asked for, not the temporary's name
	}
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	// CreateTemp makes the file 0600; match os.Create under the usual umask.
	err = tmp.Chmod(0o644)
	if err == nil {
		err = fill(tmp)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return place(tmp.Name(), path)
}

// WriteBytes replaces path with b, as Write does.
func WriteBytes(path string, b []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// Append writes b, whole lines, at the end of f and syncs it, as one write
// that a hard exit waits for (Begin). If the write fails part way, f is
// truncated back, so it never ends in a partial line.
func Append(f *os.File, b []byte) error {
	return AppendFrom(f, bytes.NewReader(b))
}

// AppendFrom is Append of everything r reads (a level file streamed onto
// requests.jsonl): if the copy fails part way, f is truncated back.
func AppendFrom(f *os.File, r io.Reader) error {
	defer Begin()()
	off, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	if err := copyInto(f, r); err != nil {
		if terr := f.Truncate(off); terr == nil {
			_, _ = f.Seek(off, io.SeekStart)
		}
		return err
	}
	return f.Sync()
}

// copyInto is io.Copy(f, r) (one Write for a bytes.Reader), paused by
// midWrite after its first byte when a test build sets it.
func copyInto(f *os.File, r io.Reader) error {
	if midWrite != nil {
		n, err := io.CopyN(f, r, 1)
		if err != nil && err != io.EOF {
			return err
		}
		if n == 1 {
			midWrite()
		}
	}
	_, err := io.Copy(f, r)
	return err
}

// midWrite, when set (only by test builds: hook_testhooks.go), runs in the
// middle of every Append, to hold a write open while a test signals.
var midWrite func()

// inFlight counts the writes in progress; a quiescing exit holds it
// exclusively once they have ended. closing is set as soon as the exit
// starts waiting, so that it waits for the writes in progress only, not for
// the ones that would follow them.
var (
	inFlight sync.RWMutex
	closing  atomic.Bool
)

// Begin marks the start of a write that must not be cut short by a hard
// exit and returns the function that marks its end. Writes may overlap.
// Once Quiesce has been called, Begin blocks for good: the process is about
// to exit, and no new write may start.
func Begin() (end func()) {
	if closing.Load() {
		select {}
	}
	inFlight.RLock()
	return inFlight.RUnlock
}

// Quiesce stops new writes from starting, waits up to timeout for the ones
// in progress to end, and reports whether they did. Either way the caller is
// expected to exit the process next.
func Quiesce(timeout time.Duration) bool {
	closing.Store(true)
	deadline := time.Now().Add(timeout)
	for !inFlight.TryLock() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(2 * time.Millisecond)
	}
	return true
}
