package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/sweep"
)

// The files of a run directory.
const (
	LevelsFile   = "levels.csv"
	RequestsFile = "requests.jsonl"
	SummaryFile  = "summary.json"
)

// RunDir persists a run as it goes. Each level is appended as it ends
// (AddLevel) and summary.json is replaced atomically (WriteSummary), so a run
// interrupted at any point leaves a valid levels.csv (header plus whole
// rows), a valid requests.jsonl (whole lines) and, once written, a valid
// summary.json. Opening a directory truncates the levels and requests files
// of any previous run in it. A RunDir is not safe for concurrent use.
type RunDir struct {
	path     string
	levels   *os.File
	requests *os.File
	buf      bytes.Buffer // staging for one levels.csv row
	csv      *LevelsCSV   // writes into buf
}

// OpenRunDir creates the directory path (and its parents) if needed, checks
// that it is writable, and starts levels.csv (header only) and an empty
// requests.jsonl in it. Errors are one line naming the directory.
func OpenRunDir(path string) (*RunDir, error) {
	if err := os.MkdirAll(path, 0o755); err != nil {
		return nil, dirError(path, err)
	}
	probe, err := os.CreateTemp(path, ".toksweep-probe-*")
	if err != nil {
		return nil, dirError(path, err)
	}
	probe.Close()
	if err := os.Remove(probe.Name()); err != nil {
		return nil, dirError(path, err)
	}
	// A re-used directory must not keep a summary of an earlier run next to
	// this run's (still empty) records.
	if err := os.Remove(filepath.Join(path, SummaryFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, dirError(path, err)
	}
	d := &RunDir{path: path}
	if d.levels, err = create(path, LevelsFile); err != nil {
		return nil, err
	}
	if d.requests, err = create(path, RequestsFile); err != nil {
		d.levels.Close()
		return nil, err
	}
	if d.csv, err = NewLevelsCSV(&d.buf); err == nil {
		err = d.flushCSV()
	}
	if err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// dirError makes a one-line error naming the directory, without repeating
// the path an *fs.PathError would add.
func dirError(dir string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("run directory %s is not writable: %w", dir, err)
}

func create(dir, name string) (*os.File, error) {
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return nil, dirError(dir, err)
	}
	return f, nil
}

// Path returns the directory.
func (d *RunDir) Path() string { return d.path }

// AddLevel appends a level's records (warm-up included, flagged) to
// requests.jsonl and then its row to levels.csv, each synced to disk. The
// records go first, so every row in levels.csv has its records on disk.
func (d *RunDir) AddLevel(l sweep.Level, s LevelStats) error {
	if d.levels == nil {
		return fmt.Errorf("run directory %s: closed", d.path)
	}
	// One buffer, one write: the level lands whole or not at all. Sizing
	// it up front spares the copies of a buffer grown by doubling.
	b, err := appendRecords(make([]byte, 0, recordsSize(l.Records)), l.Records)
	if err != nil {
		return err
	}
	if err := appendSync(d.requests, b); err != nil {
		return err
	}
	if err := d.csv.Write(s); err != nil {
		return err
	}
	return d.flushCSV()
}

// flushCSV moves the staged CSV bytes to levels.csv.
func (d *RunDir) flushCSV() error {
	defer d.buf.Reset()
	return appendSync(d.levels, d.buf.Bytes())
}

// appendSync writes whole lines b at the end of f and syncs it. If the write
// fails part way, f is truncated back so it never holds a partial line.
func appendSync(f *os.File, b []byte) error {
	off, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		if terr := f.Truncate(off); terr == nil {
			f.Seek(off, io.SeekStart)
		}
		return err
	}
	return f.Sync()
}

// WriteSummary replaces summary.json with s: it writes a temporary file in
// the directory, syncs it and renames it over summary.json, so readers see
// either the old or the new summary, never a partial one.
func (d *RunDir) WriteSummary(s Summary) error {
	tmp, err := os.CreateTemp(d.path, SummaryFile+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	// CreateTemp makes the file 0600; match os.Create under the usual umask.
	err = tmp.Chmod(0o644)
	if err == nil {
		err = WriteSummaryJSON(tmp, s)
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
	return os.Rename(tmp.Name(), filepath.Join(d.path, SummaryFile))
}

// Close closes the levels and requests files. It may be called more than
// once.
func (d *RunDir) Close() error {
	var errs []error
	for _, f := range []**os.File{&d.levels, &d.requests} {
		if *f != nil {
			errs = append(errs, (*f).Close())
			*f = nil
		}
	}
	return errors.Join(errs...)
}

// recordsSize estimates the JSON size of recs: about 600 bytes of fields per
// record and up to 12 per chunk offset or send lag.
func recordsSize(recs []client.Record) int {
	n := 0
	for i := range recs {
		n += 600 + 12*(len(recs[i].ChunkAt)+len(recs[i].SendLag))
	}
	return n
}
