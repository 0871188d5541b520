package rundir

import (
	"bufio"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/internal/atomicfile"
)

// LevelFile is the hidden file in a run directory that holds the records
// of the level in progress, one line each as the requests finish (the
// lines of requests.jsonl). At the level's end they are appended to
// requests.jsonl, and the file starts over; the run removes it when it
// closes. It is written out and synced each SyncEvery, so a run killed
// during a level (or whose append failed, which keeps the file) leaves the
// level's records on disk but for that last interval: `report` recovers
// the level from it (recover.go).
const LevelFile = ".level.jsonl.tmp"

// SyncEvery is how often the level file's buffered records are written
// out and synced: what a crash can lose of a level.
const SyncEvery = time.Second

// levelFile is a run directory's LevelFile: the records of the level in
// progress, on disk rather than in memory.
type levelFile struct {
	path string

	mu   sync.Mutex
	f    *os.File // opened O_APPEND: writes follow a truncation
	w    *bufio.Writer
	line []byte // one record's line, reused
	err  error  // the first error; AddLevel returns it
	keep bool   // an append failed: close leaves the file for report to recover
	stop chan struct{}
	done chan struct{}
}

// openLevelFile creates dir's LevelFile.
func openLevelFile(dir string) (*levelFile, error) {
	f, err := os.OpenFile(filepath.Join(dir, LevelFile), os.O_RDWR|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	if err != nil {
		return nil, dirError(dir, err)
	}
	lf := &levelFile{path: f.Name(), f: f, w: bufio.NewWriterSize(f, 64<<10), stop: make(chan struct{}), done: make(chan struct{})}
	go lf.syncLoop()
	return lf, nil
}

// syncLoop writes out and syncs the buffered records each SyncEvery until
// close.
func (lf *levelFile) syncLoop() {
	defer close(lf.done)
	t := time.NewTicker(SyncEvery)
	defer t.Stop()
	for {
		select {
		case <-lf.stop:
			return
		case <-t.C:
			lf.mu.Lock()
			if lf.flush() == nil {
				_ = lf.f.Sync() // a failed sync is met again, and reported, by the append
			}
			lf.mu.Unlock()
		}
	}
}

// add writes r's line, with its figures against a reader at speed tok/s.
// It is safe for concurrent use.
func (lf *levelFile) add(r *client.Record, speed float64) {
	lf.mu.Lock()
	defer lf.mu.Unlock()
	if lf.err != nil {
		return
	}
	var err error
	if lf.line, err = appendRecord(lf.line[:0], r, speed); err != nil {
		lf.err = fmt.Errorf("record of request %d: %w", r.Seq, err)
		return
	}
	if _, err := lf.w.Write(lf.line); err != nil {
		lf.err = fmt.Errorf("writing %s: %w", LevelFile, unwrapPath(err))
	}
	if cap(lf.line) > 1<<20 {
		lf.line = nil // a very long stream's line is not kept for the next
	}
}

// records reads the level's records back, one at a time, anew on each
// call. A read error is kept for appendTo to return.
func (lf *levelFile) records() iter.Seq[*client.Record] {
	return func(yield func(*client.Record) bool) {
		lf.mu.Lock()
		err := lf.flush()
		lf.mu.Unlock()
		if err != nil {
			return
		}
		f, err := os.Open(lf.path)
		if err == nil {
			err = EachRecord(f, yield)
			f.Close()
		}
		if err != nil {
			lf.fail(fmt.Errorf("reading %s back: %w", LevelFile, unwrapPath(err)))
		}
	}
}

// flush writes out the buffered lines; lf.mu is held.
func (lf *levelFile) flush() error {
	if lf.err == nil {
		if err := lf.w.Flush(); err != nil {
			lf.err = fmt.Errorf("writing %s: %w", LevelFile, unwrapPath(err))
		}
	}
	return lf.err
}

func (lf *levelFile) fail(err error) {
	lf.mu.Lock()
	defer lf.mu.Unlock()
	if lf.err == nil {
		lf.err = err
	}
}

// appendTo appends the level's lines to dst, streamed, and syncs dst, then
// empties the level file for the next level. If the copy fails part way,
// dst is truncated back, so it never ends in a part of the level. The
// first error since the level began is returned, and the level file is
// emptied either way.
func (lf *levelFile) appendTo(dst *os.File) error {
	lf.mu.Lock()
	defer lf.mu.Unlock()
	err := lf.flush()
	if err == nil {
		if err = appendLevel(dst, lf.path); err != nil {
			// The level's records are nowhere else: the file stays, for
			// report to recover, and the run stops (AddLevel's error).
			lf.keep = true
			return err
		}
	}
	lf.err = nil
	lf.w.Reset(lf.f)
	if terr := lf.f.Truncate(0); err == nil && terr != nil {
		err = fmt.Errorf("emptying %s: %w", LevelFile, unwrapPath(terr))
	}
	return err
}

// appendLevel is copyAppend; tests replace it to make the append fail (a
// full disk).
var appendLevel = copyAppend

// copyAppend appends the file at src to dst and syncs it
// (atomicfile.AppendFrom: truncated back if the copy fails part way).
func copyAppend(dst *os.File, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return unwrapPath(err)
	}
	defer in.Close()
	if err := atomicfile.AppendFrom(dst, in); err != nil {
		return fmt.Errorf("appending the level to %s: %w", RequestsFile, unwrapPath(err))
	}
	return nil
}

// close closes and removes the level file.
func (lf *levelFile) close() error {
	close(lf.stop)
	<-lf.done
	if lf.keep {
		lf.mu.Lock()
		defer lf.mu.Unlock()
		return errors.Join(lf.flush(), lf.f.Sync(), lf.f.Close())
	}
	return errors.Join(lf.f.Close(), os.Remove(lf.path))
}
