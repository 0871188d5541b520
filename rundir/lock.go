package rundir

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// LockRunDir locks an existing run directory for a writer that is not a
// sweep ('toksweep report' re-rendering into it), so that it never writes
// where a sweep is writing; release unlocks it. Errors are one line; one
// that matches ErrRunDirInUse names the holder.
func LockRunDir(dir string) (release func(), err error) {
	l, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	return l.release, nil
}

// writePID records the holder's process id in the lock file, for the
// message another run gets.
func (l *dirLock) writePID() {
	_ = l.f.Truncate(0)
	_, _ = l.f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
}

// readPID reads the pid a lock file holds, 0 if none.
func readPID(f *os.File) int {
	b, _ := io.ReadAll(io.LimitReader(f, 32))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

func inUse(dir string, pid int) error {
	who := "another toksweep"
	if pid > 0 {
		who = fmt.Sprintf("another toksweep (pid %d)", pid)
	}
	return &kindError{fmt.Sprintf("run directory %s is in use by %s (lock file %s)", dir, who, filepath.Join(dir, LockFile)), ErrRunDirInUse}
}

// kindError is a one-line message that errors.Is matches to its kind.
type kindError struct {
	msg  string
	kind error
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }
