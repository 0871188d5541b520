package rundir

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// Bounds on what reading a run directory may hold (a run's files may be
// handed over, or crafted: /dev/zero, a FIFO, one 1 GB line).
const (
	// MaxRunFile bounds summary.json and shard.json.
	MaxRunFile = 64 << 20
	// MaxRecordLine bounds one line of requests.jsonl: a record holds one
	// offset per chunk, and a response holds at most 4,194,304 events.
	MaxRecordLine = 64 << 20
)

// openRegular opens a run file for reading, refusing anything but a
// regular file: the open does not block on a FIFO (O_NONBLOCK), and a
// device, a FIFO or a directory is a one-line error.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file (%v)", path, fi.Mode().Type())
	}
	return f, nil
}

// readRunFile reads a small run file (summary.json, shard.json) whole,
// through openRegular and within MaxRunFile.
func readRunFile(path string) ([]byte, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxRunFile+1))
	if err == nil && len(b) > MaxRunFile {
		err = fmt.Errorf("%s is over %d MiB, toksweep's bound", path, MaxRunFile>>20)
	}
	return b, err
}
