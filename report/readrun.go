package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/sweep"
)

// SavedRun is a run directory read back: the summary as written, and the
// raw levels rebuilt from
// requests.jsonl. Summarize(Levels[i]) gives the
// figures of level i again, so a saved run is re-rendered, and compared,
// from its records rather than from the rounded figures in levels.csv.
type SavedRun struct {
	Path    string
	Summary Summary
	Levels  []sweep.Level // in run order
	// Warnings are non-fatal remarks about the directory, for stderr.
	Warnings []string
	// verdicts are the SLO verdicts recorded per level (nil: no SLO), in
	// Levels order. Stats restores them as recorded, so a re-render
	// reproduces the run's files byte for byte (the numeric SLO is in the
	// saved config, which only the command line reads).
	verdicts []*SLOResult
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
// from summary.json. Levels are in summary.json's order; a level whose
// records were saved but that summary.json does not list yet (a run killed
// between the two writes) follows, with an unknown end reason and health,
// and a warning. Level.Start and Level.End are recomputed from the records.
func ReadRunDir(path string) (SavedRun, error) {
	run := SavedRun{Path: path}
	b, err := os.ReadFile(filepath.Join(path, SummaryFile))
	if err != nil {
		return run, fmt.Errorf("reading run %s: %w", path, err)
	}
	// Numbers in the configuration's extra_body stay json.Number, as
	// written, so that the summary is rewritten byte for byte.
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&run.Summary); err != nil {
		return run, fmt.Errorf("reading run %s: %s: %w", path, SummaryFile, err)
	}
	f, err := os.Open(filepath.Join(path, RequestsFile))
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
	var warnings []string
	run.Levels, warnings = rebuildLevels(run.Summary.Levels, recs)
	run.Warnings = append(run.Warnings, warnings...)
	if c := run.Summary.Config; c != nil {
		for i := range run.Levels {
			run.Levels[i].ReadingSpeed = c.ReadingSpeed
		}
	}
	for _, lj := range run.Summary.Levels {
		run.verdicts = append(run.verdicts, recordedVerdict(lj))
	}
	return run, nil
}

// rebuildLevels groups recs into the levels that summary lists, then any
// level summary does not list.
func rebuildLevels(summary []LevelJSON, recs []client.Record) ([]sweep.Level, []string) {
	byKey := make(map[levelKey][]client.Record)
	var order []levelKey // first appearance in recs
	for _, r := range recs {
		k := levelKey{r.Concurrency, r.Rate, r.Repeat}
		if _, seen := byKey[k]; !seen {
			order = append(order, k)
		}
		byKey[k] = append(byKey[k], r)
	}
	var levels []sweep.Level
	listed := make(map[levelKey]bool)
	for _, lj := range summary {
		k := levelKey{lj.Concurrency, lj.Rate, lj.Repeat}
		listed[k] = true
		levels = append(levels, newLevel(k, lj.EndReason, lj.Health, byKey[k]))
		levels[len(levels)-1].Server = lj.ServerMetrics
	}
	var warnings []string
	for _, k := range order {
		if listed[k] {
			continue
		}
		name := LevelName(LevelStats{Concurrency: k.concurrency, Rate: k.rate})
		warnings = append(warnings, fmt.Sprintf("level %s repeat %d has records but is not in %s: its end reason and client health are unknown",
			name, k.repeat, SummaryFile))
		levels = append(levels, newLevel(k, "", sweep.Health{}, byKey[k]))
	}
	return levels, warnings
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
func (r SavedRun) Stats() []LevelStats {
	stats := make([]LevelStats, len(r.Levels))
	for i, l := range r.Levels {
		stats[i] = Summarize(l)
		if c := r.Summary.Config; c != nil {
			AddPercentiles(&stats[i], l, c.Percentiles)
		}
		if i < len(r.verdicts) {
			stats[i].SLO = r.verdicts[i]
		}
	}
	return stats
}

// recordedVerdict reads a level's SLO verdict back from summary.json, nil
// when the run had no SLO.
func recordedVerdict(lj LevelJSON) *SLOResult {
	if lj.SLOPass == nil {
		return nil
	}
	v := &SLOResult{Pass: *lj.SLOPass, GoodputRPS: math.NaN(), GoodputRatio: math.NaN()}
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
func (r SavedRun) Resummarized(stats []LevelStats) Summary {
	s := r.Summary
	s.Levels = make([]LevelJSON, len(stats))
	for i, st := range stats {
		s.Levels[i] = NewLevelJSON(st)
	}
	return s
}
