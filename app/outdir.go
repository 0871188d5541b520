package app

import (
	"errors"
	"fmt"
	"time"

	"github.com/toksweep/toksweep/internal/atomicfile"
	"github.com/toksweep/toksweep/rundir"
)

// Signal handling, as main does it (docs/guide.md, "Exit status and errors": status 130).
const (
	// SignalDebounce: signals this close to the first are one interrupt.
	SignalDebounce = 500 * time.Millisecond
	// HardExitWait bounds how long a second interrupt waits for the file
	// being written.
	HardExitWait = 2 * time.Second
)

// SettleFiles waits, up to timeout, for the file writes in progress to end,
// and keeps new ones from starting: what a hard exit calls before os.Exit.
func SettleFiles(timeout time.Duration) bool { return atomicfile.Quiesce(timeout) }

// reserveOut takes the run directory for a sweep: the default one is made
// unique (results/YYYYMMDD-HHMMSS, then -2, -3, ...), a given --out must be
// new or empty unless --overwrite replaces the run in it, and one in use by
// another toksweep is refused. o.Out becomes the directory taken.
func reserveOut(o *options) (*rundir.RunDir, error) {
	dir, err := rundir.ReserveRunDir(o.Out, rundir.RunDirOptions{Overwrite: o.Overwrite, Unique: o.OutDefault})
	switch {
	case errors.Is(err, rundir.ErrRunDirNotEmpty):
		return nil, usagef("%s: choose another --out, or give --overwrite to replace that run", err)
	case errors.Is(err, rundir.ErrRunDirNotRun):
		return nil, usagef("%s", err)
	case errors.Is(err, rundir.ErrRunDirInUse):
		return nil, fmt.Errorf("%w; choose another --out", err)
	case err != nil:
		return nil, err
	}
	o.Out = dir.Path()
	return dir, nil
}
