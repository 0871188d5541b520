package rundir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// recoverLevels adds the levels left in the run's LevelFile: the level a
// run was killed during (end reason crashed: summary.json has no end
// reason yet), or whose append to requests.jsonl failed (failed: the run
// ended failed). Each is a level summary.json does not list, with its
// figures over the records that reached the disk (a last line cut short
// is left out). Its health is unknown (zero), and a warning says so.
func (r *SavedRun) recoverLevels() {
	f, err := os.Open(filepath.Join(r.Path, LevelFile))
	if err != nil {
		return // no level was left behind
	}
	defer f.Close()
	if !regular(f) {
		return
	}
	recs, err := ReadRecords(f)
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
	byKey := make(map[levelKey][]int)
	var order []levelKey
	for i, rec := range recs {
		k := levelKey{rec.Concurrency, rec.Rate, rec.Repeat}
		if listed[k] {
			continue // a level already whole in requests.jsonl
		}
		if _, seen := byKey[k]; !seen {
			order = append(order, k)
		}
		byKey[k] = append(byKey[k], i)
	}
	for _, k := range order {
		var lrecs []client.Record
		for _, i := range byKey[k] {
			lrecs = append(lrecs, recs[i])
		}
		l := newLevel(k, end, sweep.Health{}, lrecs)
		if c := r.Summary.Config; c != nil {
			l.ReadingSpeed = c.ReadingSpeed
		}
		if i, ok := again[k]; ok {
			l.EndReason, l.Server = r.Levels[i].EndReason, r.Levels[i].Server
			r.Levels[i] = l
		} else {
			r.Levels = append(r.Levels, l)
			r.verdicts = append(r.verdicts, nil)
		}
		name := report.LevelName(report.LevelStats{Concurrency: k.concurrency, Rate: k.rate, Repeat: k.repeat})
		r.Warnings = append(r.Warnings, fmt.Sprintf("level %s recovered from %s (%d records that reached the disk), marked %s",
			name, LevelFile, len(l.Records), l.EndReason))
	}
}

// regular reports whether f is a regular file (not a FIFO or a device).
func regular(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode().IsRegular()
}
