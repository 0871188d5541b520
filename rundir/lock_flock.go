//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// staleLockTakenOver is true here: a lock file no process holds is taken
// over.
const staleLockTakenOver = true

// dirLock is a run directory's lock file, held with flock(2). The kernel
// drops the lock when the process ends, however it ends: a lock file left
// behind by a crash (or a second Ctrl-C, or kill -9) is stale, and the next
// run takes it over without a word.
type dirLock struct {
	f    *os.File
	path string
}

// lockDir locks dir, or fails with ErrRunDirInUse naming the holder's pid.
func lockDir(dir string) (*dirLock, error) {
	path := filepath.Join(dir, LockFile)
	for range 3 {
		f, err := openLock(dir, path)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			pid := readPID(f)
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, inUse(dir, pid)
			}
			return nil, dirError(dir, err)
		}
		// The holder may have finished, removing the file, between our
		// open and our flock: then the lock we hold is on a file no one
		// else will open, and the new file must be locked instead.
		if sameFile(f, path) {
			l := &dirLock{f: f, path: path}
			l.writePID()
			return l, nil
		}
		f.Close()
	}
	return nil, inUse(dir, 0)
}

// openLock opens the lock file without following a link: a new one with
// O_CREAT|O_EXCL, an existing one only when it is a regular file, so that
// a planted .toksweep.lock symlink never gets a target truncated, written
// or created.
func openLock(dir, path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if errors.Is(err, fs.ErrExist) {
		f, err = os.OpenFile(path, os.O_RDWR|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	}
	if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK) || errors.Is(err, syscall.EISDIR) {
		return nil, notRegularLock(dir, path)
	}
	if err != nil {
		return nil, dirError(dir, err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, notRegularLock(dir, path)
	}
	return f, nil
}

func notRegularLock(dir, path string) error {
	return fmt.Errorf("run directory %s: its lock %s is not a regular file (a link, a FIFO or a directory); remove it", dir, path)
}

func sameFile(f *os.File, path string) bool {
	a, err1 := f.Stat()
	b, err2 := os.Lstat(path)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// release removes the lock file while still holding it, then lets it go.
func (l *dirLock) release() {
	_ = os.Remove(l.path)
	_ = l.f.Close()
}
