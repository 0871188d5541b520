//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package rundir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// staleLockTakenOver is false here: a lock file left by a crash must be
// removed by hand.
const staleLockTakenOver = false

// dirLock is a run directory's lock file, created exclusively. Without
// flock(2) a crash leaves it behind; the next run then reports the
// directory in use, naming the file to remove.
type dirLock struct {
	f    *os.File
	path string
}

func lockDir(dir string) (*dirLock, error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		pid := 0
		if g, oerr := os.Open(path); oerr == nil {
			pid = readPID(g)
			g.Close()
		}
		return nil, inUse(dir, pid)
	}
	if err != nil {
		return nil, dirError(dir, err)
	}
	l := &dirLock{f: f, path: path}
	l.writePID()
	return l, nil
}

func (l *dirLock) release() {
	_ = l.f.Close()
	_ = os.Remove(l.path)
}
