package rundir

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/internal/atomicfile"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// The files of a run directory.
const (
	LevelsFile   = "levels.csv"
	RequestsFile = "requests.jsonl"
	SummaryFile  = "summary.json"
)

// LockFile is the lock a run holds in its directory while it writes there.
const LockFile = ".toksweep.lock"

// Errors of ReserveRunDir, for errors.Is; the errors themselves are one line
// naming the directory.
var (
	// ErrRunDirNotEmpty means the directory already holds files (an
	// earlier run) and RunDirOptions.Overwrite was not given.
	ErrRunDirNotEmpty = errors.New("run directory not empty")
	// ErrRunDirNotRun means RunDirOptions.Overwrite was given, but the
	// directory holds something other than a toksweep run (replace.go).
	ErrRunDirNotRun = errors.New("run directory holds no toksweep run")
	// ErrRunDirInUse means another process holds the directory's lock.
	ErrRunDirInUse = errors.New("run directory in use")
)

// RunDirOptions say how ReserveRunDir may take its directory.
type RunDirOptions struct {
	// Overwrite lets an existing, non-empty directory that holds a toksweep
	// run and nothing else (checkRun) be replaced as a
	// whole: Begin moves the earlier run aside and Close deletes it.
	Overwrite bool
	// Unique takes path as a stem and creates the first of path, path-2,
	// path-3, ... that does not exist (for the default --out).
	Unique bool
}

// RunDir persists a run as it goes. Each record goes to the level file
// (LevelFile) as its request finishes (AddRecord), each level is appended as it
// ends (AddLevel) and summary.json is replaced atomically (WriteSummary), so
// a run interrupted at any point leaves a valid levels.csv (header plus whole
// rows), a valid requests.jsonl (whole lines, whole levels) and, once
// written, a valid summary.json.
//
// A run takes its directory in two steps. ReserveRunDir, before any request,
// checks that the directory can be written and locks it, without changing
// anything an earlier run left there; Begin, once the target passed its
// checks, starts the files. Close releases the lock (and, if the run never
// began, removes the directory it created). A RunDir is not safe for
// concurrent use.
type RunDir struct {
	path     string
	created  bool // ReserveRunDir made the directory
	replace  bool // Begin must move an earlier run aside
	begun    bool
	aside    string     // where Begin moved the earlier run ("" if none)
	locks    []*dirLock // the directory's lock (and, once moved, the earlier run's)
	levels   *os.File
	requests *os.File
	level    *levelFile   // the records of the level in progress
	buf      bytes.Buffer // staging for one levels.csv row
	// Settings are the run's figure settings, set before Begin: its
	// extra percentiles are levels.csv columns after the registry's, its
	// reader that of the smoothness fields of the lines AddRecord writes.
	Settings report.Settings
	csv      *report.LevelsCSV // writes into buf
}

// OpenRunDir reserves a fresh or empty directory path and begins a run in
// it: ReserveRunDir(path, RunDirOptions{}) and Begin.
func OpenRunDir(path string) (*RunDir, error) {
	d, err := ReserveRunDir(path, RunDirOptions{})
	if err != nil {
		return nil, err
	}
	if err := d.Begin(); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// ReserveRunDir takes the directory path for a run, creating it (and its
// parents) if needed, and locks it so that no other toksweep writes there.
// An existing directory must be empty unless opts.Overwrite is set; a
// non-empty one is refused (ErrRunDirNotEmpty) before anything in it is
// touched. It writes nothing but the lock file. Errors are one line naming
// the directory.
func ReserveRunDir(path string, opts RunDirOptions) (*RunDir, error) {
	d := &RunDir{path: path}
	var err error
	if opts.Unique {
		d.path, err = mkdirUnique(path)
		d.created = err == nil
	} else {
		d.created, err = mkdirIfMissing(path)
	}
	if err != nil {
		return nil, err
	}
	if !d.created { // refuse without touching anything
		if err := checkEmptyOrRun(d.path, opts.Overwrite); err != nil {
			return nil, err
		}
	}
	lock, err := lockDir(d.path)
	if err != nil {
		d.Close()
		return nil, err
	}
	d.locks = append(d.locks, lock)
	// Checked again under the lock: the directory may have been filled
	// since.
	if err := checkEmpty(d.path); err != nil {
		if !opts.Overwrite || !errors.Is(err, ErrRunDirNotEmpty) {
			d.Close()
			return nil, err
		}
		if err := checkRun(d.path); err != nil {
			d.Close()
			return nil, err
		}
		d.replace = true
	}
	return d, nil
}

// checkEmptyOrRun is the check made before the lock: dir must be empty, or
// with overwrite hold a toksweep run and nothing else.
func checkEmptyOrRun(dir string, overwrite bool) error {
	err := checkEmpty(dir)
	if err != nil && overwrite && errors.Is(err, ErrRunDirNotEmpty) {
		return checkRun(dir)
	}
	return err
}

// mkdirIfMissing creates path (and its parents) unless it is already a
// directory, and says whether it created it.
func mkdirIfMissing(path string) (bool, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, dirError(path, err)
	}
	err := os.Mkdir(path, 0o755)
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return false, dirError(path, err)
	}
	if fi, serr := os.Stat(path); serr != nil || !fi.IsDir() {
		return false, dirError(path, syscall.ENOTDIR)
	}
	return false, nil
}

// mkdirUnique creates the first of stem, stem-2, stem-3, ... that does not
// exist. os.Mkdir fails on an existing directory, so two runs started in the
// same second, even in parallel, never get the same one.
func mkdirUnique(stem string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(stem), 0o755); err != nil {
		return "", dirError(stem, err)
	}
	for i := 1; i <= 1000; i++ {
		path := stem
		if i > 1 {
			path = fmt.Sprintf("%s-%d", stem, i)
		}
		err := os.Mkdir(path, 0o755)
		if err == nil {
			return path, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", dirError(path, err)
		}
	}
	return "", fmt.Errorf("run directory %s: %s-2 to %s-1000 exist too", stem, stem, stem)
}

// CheckEmpty fails with ErrRunDirNotEmpty, in one line naming a few
// entries, when dir holds anything besides its lock: for a writer that
// renders into a directory of its own ('toksweep report --out').
func CheckEmpty(dir string) error { return checkEmpty(dir) }

// checkEmpty fails with ErrRunDirNotEmpty, naming a few of the entries, when
// dir holds anything besides a lock file.
func checkEmpty(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return dirError(dir, err)
	}
	var names []string
	for _, e := range entries {
		if e.Name() != LockFile || !e.Type().IsRegular() { // a planted link or directory is content
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil
	}
	more := ""
	if len(names) > 3 {
		names, more = names[:3], fmt.Sprintf(" and %d more", len(names)-3)
	}
	return &kindError{fmt.Sprintf("run directory %s already holds %s%s", dir, strings.Join(names, ", "), more), ErrRunDirNotEmpty}
}

// Begin starts the run's files: levels.csv (header only) and an empty
// requests.jsonl. When the directory held an earlier run (Overwrite), that
// run is first moved, whole, into a new sibling directory DIR.replaced-*,
// which Close deletes: at every instant DIR holds either the earlier run or
// this one, and a run killed before Close leaves the earlier one there.
func (d *RunDir) Begin() error {
	if d.begun || len(d.locks) == 0 {
		return fmt.Errorf("run directory %s: not reserved", d.path)
	}
	if d.replace {
		if err := d.moveAside(); err != nil {
			return err
		}
	}
	var err error
	if d.levels, err = create(d.path, LevelsFile); err != nil {
		return err
	}
	if d.requests, err = create(d.path, RequestsFile); err != nil {
		return err
	}
	if d.level, err = openLevelFile(d.path); err != nil {
		return err
	}
	if d.csv, err = report.NewLevelsCSV(&d.buf, d.Settings.Columns()); err == nil {
		err = d.flushCSV()
	}
	if err != nil {
		return err
	}
	d.begun = true
	return nil
}

// moveAside moves the earlier run out of the way and takes a fresh, locked
// directory in its place. The earlier run's lock is kept until Close.
func (d *RunDir) moveAside() error {
	aside, err := os.MkdirTemp(filepath.Dir(d.path), filepath.Base(d.path)+".replaced-*")
	if err != nil {
		return dirError(d.path, err)
	}
	if err := os.Rename(d.path, filepath.Join(aside, filepath.Base(d.path))); err != nil {
		os.Remove(aside)
		return dirError(d.path, err)
	}
	d.aside, d.replace = aside, false
	for _, l := range d.locks { // the earlier run's lock moved with it
		l.path = filepath.Join(aside, filepath.Base(d.path), LockFile)
	}
	if err := os.Mkdir(d.path, 0o755); err != nil {
		return fmt.Errorf("run directory %s was re-created by another process while this run replaced it; the earlier run is in %s", d.path, aside)
	}
	lock, err := lockDir(d.path)
	if err != nil {
		return err
	}
	d.locks = append(d.locks, lock)
	return nil
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

// create makes a new file in dir; one already there (written by someone
// else) is an error, never truncated.
func create(dir, name string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, dirError(dir, err)
	}
	return f, nil
}

// Path returns the directory.
func (d *RunDir) Path() string { return d.path }

// A RunDir is the sweep's record sink (sweep.Config.Sink): a level's
// records wait in the level file, not in memory.
var _ sweep.RecordSink = (*RunDir)(nil)

// AddRecord writes a finished request's record to the level file, where it
// waits for the level's end (AddLevel), so that a level's records are not
// held in memory. It is safe for concurrent use; an error is kept, and
// AddLevel returns it.
func (d *RunDir) AddRecord(r *client.Record) {
	d.level.add(r, d.Settings.Reader())
}

// LevelRecords reads back the records given to AddRecord since the last
// AddLevel, one at a time and anew on each call: the Source of the level
// that just ended (sweep.Level), for Summarize.
func (d *RunDir) LevelRecords() iter.Seq[*client.Record] { return d.level.records() }

// AddLevel appends a level's records (warm-up included, flagged) to
// requests.jsonl and then its row to levels.csv, each synced to disk. The
// records go first, so every row in levels.csv has its records on disk. The
// records are those given to AddRecord during the level, or, when the level
// holds them (l.Records), those; they reach requests.jsonl through the
// level file, streamed, so that the level lands whole and memory does not
// grow with it.
func (d *RunDir) AddLevel(l sweep.Level, s report.LevelStats) error {
	if d.levels == nil {
		return fmt.Errorf("run directory %s: closed", d.path)
	}
	for i := range l.Records {
		d.level.add(&l.Records[i], d.Settings.Reader())
	}
	if err := d.level.appendTo(d.requests); err != nil {
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
	return atomicfile.Append(d.levels, d.buf.Bytes())
}

// WriteSummary replaces summary.json with s atomically (atomicfile.Write):
// readers see either the old or the new summary, never a partial one.
func (d *RunDir) WriteSummary(s report.Summary) error {
	err := atomicfile.Write(filepath.Join(d.path, SummaryFile), func(w io.Writer) error {
		return report.WriteSummaryJSON(w, s)
	})
	if err != nil {
		return fmt.Errorf("writing %s: %w", SummaryFile, unwrapPath(err))
	}
	return nil
}

// unwrapPath drops the temporary file's name an *fs.PathError carries.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Close closes the files and releases the lock. A run that began deletes
// the earlier run it replaced; one that never began removes the directory
// if ReserveRunDir created it (it is empty). It may be called more than
// once.
func (d *RunDir) Close() error {
	var errs []error
	for _, f := range []**os.File{&d.levels, &d.requests} {
		if *f != nil {
			errs = append(errs, (*f).Close())
			*f = nil
		}
	}
	if d.level != nil {
		errs = append(errs, d.level.close())
		d.level = nil
	}
	if d.begun && d.aside != "" {
		errs = append(errs, os.RemoveAll(d.aside))
		d.aside = ""
	}
	for i := len(d.locks) - 1; i >= 0; i-- {
		d.locks[i].release()
	}
	d.locks = nil
	if !d.begun && d.created {
		_ = os.Remove(d.path) // only if empty
		d.created = false
	}
	return errors.Join(errs...)
}
