package rundir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// SavedRun is a run directory read back: the summary as written, and the
// raw levels rebuilt from
// requests.jsonl. Summarize(Levels[i], Summary.Config.Settings()) gives
// the figures of level i again, so a saved run is re-rendered, and compared,
// from its records rather than from the rounded figures in levels.csv.
type SavedRun struct {
	Path    string
	Summary report.Summary
	Levels  []sweep.Level // in run order
	// Warnings are non-fatal remarks about the directory, for stderr.
	Warnings []string
	scanErr  *error // ScanRunDir's: the first error reading records back
	// verdicts are the SLO verdicts recorded per level (nil: no SLO), in
	// Levels order. Stats restores them as recorded, so a re-render
	// reproduces the run's files byte for byte (the numeric SLO is in the
	// saved config, which only the command line reads).
	verdicts []*report.SLOResult
	// classVerdicts are, per level, its class rows' verdicts (--class).
	classVerdicts [][]*report.SLOResult
}

// levelKey identifies a level within a run: its concurrency (an open
// loop's cap), its offered rate (0 in a closed loop) and its repeat.
type levelKey struct {
	concurrency int
	rate        float64
	repeat      int
}

// ReadRunDir reads a directory written by RunDir. The records of
// requests.jsonl are grouped by (concurrency, repeat), in file order; what
// the records cannot tell, each level's end reason and client health, comes
// from summary.json. Levels are in summary.json's order. Records of a level
// that summary.json does not list are an unfinished tail (a run killed
// while it appended the level, or before its summary caught up; a run still
// writing): they are ignored, with a warning, since nothing says that they
// are whole. Level.Start and Level.End are recomputed from the records.
// Every record is in memory (Level.Records), but a level recovered from the
// level file (recover.go), which reads it anew; ScanRunDir leaves them on disk.
func ReadRunDir(path string) (SavedRun, error) {
	run, err := readSummary(path)
	if err != nil {
		return run, err
	}
	f, err := openRegular(filepath.Join(path, RequestsFile))
	if err != nil {
		return run, fmt.Errorf("reading run %s: %w", path, err)
	}
	defer f.Close()
	recs, err := ReadRecords(f)
	if errors.Is(err, ErrPartialLastLine) {
		run.Warnings = append(run.Warnings, fmt.Sprintf("%s: %v; ignored", RequestsFile, err))
	} else if err != nil {
		return run, fmt.Errorf("reading run %s: %s: %w", path, RequestsFile, err)
	}
	byKey := make(map[levelKey][]client.Record)
	var order []levelKey // first appearance in recs
	for _, r := range recs {
		k := levelKey{r.Concurrency, r.Rate, r.Repeat}
		if _, seen := byKey[k]; !seen {
			order = append(order, k)
		}
		byKey[k] = append(byKey[k], r)
	}
	run.addLevels(order, func(k levelKey, end sweep.EndReason, h sweep.Health) sweep.Level {
		return newLevel(k, end, h, byKey[k])
	})
	run.recoverLevels()
	return run, nil
}

// ScanRunDir reads a run directory as ReadRunDir does, with the same
// levels and figures, but leaves the records on disk: each level's Source
// reads its lines of requests.jsonl anew, one record at a time, so that
// re-rendering a run takes memory for one level's per-request figures, not
// for its records. One pass over requests.jsonl finds where each level's
// lines are. An error reading them back later is kept for ScanErr.
func ScanRunDir(path string) (SavedRun, error) {
	run, err := readSummary(path)
	if err != nil {
		return run, err
	}
	file := filepath.Join(path, RequestsFile)
	f, err := openRegular(file)
	if err != nil {
		return run, fmt.Errorf("reading run %s: %w", path, err)
	}
	defer f.Close()
	idx, err := indexLevels(f)
	if errors.Is(err, ErrPartialLastLine) {
		run.Warnings = append(run.Warnings, fmt.Sprintf("%s: %v; ignored", RequestsFile, err))
	} else if err != nil {
		return run, fmt.Errorf("reading run %s: %s: %w", path, RequestsFile, err)
	}
	run.scanErr = new(error)
	run.addLevels(idx.order, func(k levelKey, end sweep.EndReason, h sweep.Health) sweep.Level {
		li := idx.levels[k]
		if li == nil { // listed, with no record (a level aborted before its first request)
			li = &levelLines{}
		}
		return sweep.Level{Concurrency: k.concurrency, Rate: k.rate, Repeat: k.repeat, EndReason: end, Health: h,
			Start: li.start, End: li.end, Source: spanSource(file, li.spans, run.scanErr)}
	})
	run.recoverLevels()
	return run, nil
}

// ScanErr is the first error met reading a ScanRunDir run's records back
// (the file changed or vanished since): figures computed after it rest on
// part of the records. Nil for ReadRunDir.
func (r SavedRun) ScanErr() error {
	if r.scanErr == nil {
		return nil
	}
	return *r.scanErr
}

// readSummary reads a run directory's summary.json.
func readSummary(path string) (SavedRun, error) {
	run := SavedRun{Path: path}
	b, err := readRunFile(filepath.Join(path, SummaryFile))
	if err != nil {
		return run, fmt.Errorf("reading run %s: %w", path, err)
	}
	if run.Summary, err = decodeSummary(b); err != nil {
		return run, fmt.Errorf("reading run %s: %s: %w", path, SummaryFile, err)
	}
	for _, lj := range run.Summary.Levels {
		run.verdicts = append(run.verdicts, recordedVerdict(lj))
		var cv []*report.SLOResult
		for _, c := range lj.Classes {
			cv = append(cv, recordedVerdict(c))
		}
		run.classVerdicts = append(run.classVerdicts, cv)
	}
	return run, nil
}

// decodeSummary decodes summary.json. Numbers in the configuration's
// extra_body stay json.Number, as written, so that the summary is
// rewritten byte for byte.
func decodeSummary(b []byte) (report.Summary, error) {
	var sum report.Summary
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	err := dec.Decode(&sum)
	return sum, err
}

// addLevels makes the run's levels, of the keys order lists (first
// appearance in requests.jsonl), with level: those summary.json lists, in
// its order. A level it does not list is left out, with a warning.
func (r *SavedRun) addLevels(order []levelKey, level func(levelKey, sweep.EndReason, sweep.Health) sweep.Level) {
	listed := make(map[levelKey]bool)
	for _, lj := range r.Summary.Levels {
		k := levelKey{lj.Concurrency, lj.Rate, lj.Repeat}
		if listed[k] { // a crafted summary: the level's records would count twice
			name := report.LevelName(report.LevelStats{Concurrency: k.concurrency, Rate: k.rate})
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s lists level %s repeat %d more than once: the repeats are ignored", SummaryFile, name, k.repeat))
			continue
		}
		listed[k] = true
		l := level(k, lj.EndReason, lj.Health)
		l.Server = lj.ServerMetrics
		r.Levels = append(r.Levels, l)
	}
	for _, k := range order {
		if listed[k] {
			continue
		}
		name := report.LevelName(report.LevelStats{Concurrency: k.concurrency, Rate: k.rate})
		r.Warnings = append(r.Warnings, fmt.Sprintf("level %s repeat %d has records but is not in %s (the run stopped while writing it, or is still writing): ignored",
			name, k.repeat, SummaryFile))
	}
	for i := range r.Levels {
		r.configure(&r.Levels[i])
	}
}

// configure gives a level read back what the run's config says of every
// level: the mode that ran it (a run saved before
// the config named it, or naming a mode this build lacks: none, and
// report recovers it from the records as before).
func (r *SavedRun) configure(l *sweep.Level) {
	c := r.Summary.Config
	if c == nil {
		return
	}
	if l.Mode == "" && sweep.ModeNamed(c.Mode) != nil {
		l.Mode = c.Mode
	}
}

func newLevel(k levelKey, end sweep.EndReason, h sweep.Health, recs []client.Record) sweep.Level {
	l := sweep.Level{Concurrency: k.concurrency, Rate: k.rate, Repeat: k.repeat, EndReason: end, Health: h, Records: recs}
	for i, r := range recs {
		if i == 0 || r.Start < l.Start {
			l.Start = r.Start
		}
		l.End = max(l.End, r.End)
	}
	return l
}

// Stats summarizes every level of the run, in order, with the SLO verdict
// each level was given when it ran.
func (r SavedRun) Stats() []report.LevelStats {
	stats := make([]report.LevelStats, len(r.Levels))
	for i, l := range r.Levels {
		stats[i] = report.Summarize(l, r.Summary.Config.Settings())
		if i < len(r.verdicts) {
			stats[i].SLO = r.verdicts[i]
		}
		if i < len(r.classVerdicts) {
			for j, v := range r.classVerdicts[i] {
				if j < len(stats[i].Classes) {
					stats[i].Classes[j].SLO = v
				}
			}
		}
	}
	return stats
}

// recordedVerdict reads a level's SLO verdict back from summary.json, nil
// when the run had no SLO.
func recordedVerdict(lj report.LevelJSON) *report.SLOResult {
	if lj.SLOPass == nil {
		return nil
	}
	v := &report.SLOResult{Pass: *lj.SLOPass, GoodputRPS: math.NaN(), GoodputRatio: math.NaN()}
	if lj.GoodputRPS != nil {
		v.GoodputRPS = *lj.GoodputRPS
	}
	if lj.GoodputRatio != nil {
		v.GoodputRatio = *lj.GoodputRatio
	}
	if lj.SLOFailed != "" {
		v.Failed = strings.Split(lj.SLOFailed, "; ")
	}
	return v
}

// Resummarized is the run's summary with every level's figures recomputed
// from stats (normally r.Stats()); the run's metadata is kept as read.
func (r SavedRun) Resummarized(stats []report.LevelStats) report.Summary {
	s := r.Summary
	s.Levels = make([]report.LevelJSON, len(stats))
	for i, st := range stats {
		s.Levels[i] = report.NewLevelJSON(st)
	}
	return s
}

// Kept is the run as its answer read it: a steered run (--twin) without
// the calibration runs that full-length runs of their levels replaced
// (report.KeptRuns). Every reader that pools or plots a run's levels
// reads these; levels.csv and summary.json keep every run.
func (r SavedRun) Kept() SavedRun {
	idx := make([]int, len(r.Levels))
	for i := range idx {
		idx[i] = i
	}
	idx = report.KeptRuns(r.Summary.Twin, idx, r.Summary.Config, func(i int) (sweep.LevelKey, int) {
		return r.Levels[i].Key(), r.Levels[i].Repeat
	})
	if len(idx) == len(r.Levels) {
		return r
	}
	k := r
	k.Levels, k.verdicts, k.classVerdicts = nil, nil, nil
	for _, i := range idx {
		k.Levels = append(k.Levels, r.Levels[i])
		if i < len(r.verdicts) {
			k.verdicts = append(k.verdicts, r.verdicts[i])
		}
		if i < len(r.classVerdicts) {
			k.classVerdicts = append(k.classVerdicts, r.classVerdicts[i])
		}
	}
	return k
}
