package rundir

import (
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// recoverLevels adds the levels left in the run's LevelFile: the level a
// run was killed during (end reason crashed: summary.json has no end
// reason yet), or whose append to requests.jsonl failed (failed: the run
// ended failed). Each is a level summary.json does not list, with its
// figures over the records that reached the disk (a last line cut short
// is left out), read from the file when asked (Level.Source). Its health
// is unknown (zero), and a warning says so.
func (r *SavedRun) recoverLevels() {
	f, err := os.Open(filepath.Join(r.Path, LevelFile))
	if err != nil {
		return // no level was left behind
	}
	defer f.Close()
	if !regular(f) {
		return
	}
	// One pass finds the levels and their spans; each level's Source
	// reads the file again, its own records only, so that recovering a
	// long level takes one record's memory, not the level's.
	type found struct {
		n          int
		start, end time.Duration
	}
	byKey := make(map[levelKey]*found)
	var order []levelKey
	err = EachRecord(f, func(rec *client.Record) bool {
		k := levelKey{rec.Concurrency, rec.Rate, rec.Repeat}
		fd := byKey[k]
		if fd == nil {
			fd = &found{start: rec.Start}
			byKey[k] = fd
			order = append(order, k)
		}
		fd.n++
		fd.start, fd.end = min(fd.start, rec.Start), max(fd.end, rec.End)
		return true
	})
	if err != nil && !errors.Is(err, ErrPartialLastLine) {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s: %v; not recovered", LevelFile, err))
		return
	}
	end := sweep.Crashed
	if r.Summary.EndReason == string(sweep.Failed) {
		end = sweep.Failed
	}
	// A level listed as crashed or failed is one a report of this
	// directory recovered before: its records are still only here.
	listed := make(map[levelKey]bool)
	again := make(map[levelKey]int)
	for i, l := range r.Levels {
		k := levelKey{l.Concurrency, l.Rate, l.Repeat}
		if l.EndReason == sweep.Crashed || l.EndReason == sweep.Failed {
			again[k] = i
			continue
		}
		listed[k] = true
	}
	for _, k := range order {
		if listed[k] {
			continue // a level already whole in requests.jsonl
		}
		fd := byKey[k]
		l := sweep.Level{Concurrency: k.concurrency, Rate: k.rate, Repeat: k.repeat, EndReason: end,
			Start: fd.start, End: fd.end, Source: levelFileSource(f.Name(), k)}
		r.configure(&l)
		if i, ok := again[k]; ok {
			l.EndReason, l.Server, l.Mode = r.Levels[i].EndReason, r.Levels[i].Server, r.Levels[i].Mode
			r.Levels[i] = l
		} else {
			r.Levels = append(r.Levels, l)
			r.verdicts = append(r.verdicts, nil)
		}
		name := report.LevelName(report.LevelStats{Concurrency: k.concurrency, Rate: k.rate, Repeat: k.repeat})
		r.Warnings = append(r.Warnings, fmt.Sprintf("level %s recovered from %s (%d records that reached the disk), marked %s",
			name, LevelFile, fd.n, l.EndReason))
	}
}

// levelFileSource yields the records of level k in the level file at
// path, anew on each call; a last line cut short is left out.
func levelFileSource(path string, k levelKey) iter.Seq[*client.Record] {
	return func(yield func(*client.Record) bool) {
		f, err := os.Open(path)
		if err != nil {
			return
		}
		defer f.Close()
		_ = EachRecord(f, func(rec *client.Record) bool {
			if (levelKey{rec.Concurrency, rec.Rate, rec.Repeat}) != k {
				return true
			}
			return yield(rec)
		})
	}
}

// regular reports whether f is a regular file (not a FIFO or a device).
func regular(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode().IsRegular()
}
