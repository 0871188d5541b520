package rundir

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
)

func TestRunDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "results", "run-1") // parents are created
	d, err := OpenRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	levels := goldenLevels()[:2]
	var stats []report.LevelStats
	var recs []client.Record
	for i, l := range levels {
		s := report.Summarize(l, report.Settings{})
		if err := d.AddLevel(l, s); err != nil {
			t.Fatal(err)
		}
		stats, recs = append(stats, s), append(recs, l.Records...)
		// After every level the files on disk are complete, as if the run
		// were interrupted now.
		checkLevelsCSV(t, filepath.Join(dir, LevelsFile), i+1)
		checkRequests(t, filepath.Join(dir, RequestsFile), recs)
		if err := d.WriteSummary(goldenSummary(stats)); err != nil {
			t.Fatal(err)
		}
		checkSummary(t, filepath.Join(dir, SummaryFile), i+1)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := d.AddLevel(levels[0], stats[0]); err == nil {
		t.Error("AddLevel after Close succeeded")
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{LevelsFile, RequestsFile, SummaryFile}; !slices.Equal(names, want) {
		t.Errorf("directory holds %v, want %v (no probe or temp files)", names, want)
	}
}

func checkLevelsCSV(t *testing.T, path string, levels int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("levels.csv: %v", err)
	}
	if len(rows) != levels+1 || !slices.Equal(rows[0], report.LevelsCSVHeader) {
		t.Fatalf("levels.csv has %d lines (header %v), want a header and %d rows", len(rows), rows[0], levels)
	}
}

func checkRequests(t *testing.T, path string, want []client.Record) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := ReadRecords(f)
	if err != nil {
		t.Fatalf("requests.jsonl: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("requests.jsonl holds %d records that differ from the %d written", len(got), len(want))
	}
}

func checkSummary(t *testing.T, path string, levels int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s report.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("summary.json: %v", err)
	}
	if len(s.Levels) != levels || !s.Started.Equal(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)) {
		t.Fatalf("summary.json: %d levels, started %v", len(s.Levels), s.Started)
	}
}

func TestOpenRunDirEmpty(t *testing.T) {
	// A run interrupted before its first level still leaves a valid CSV.
	dir := t.TempDir()
	d, err := OpenRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	checkLevelsCSV(t, filepath.Join(dir, LevelsFile), 0)
	checkRequests(t, filepath.Join(dir, RequestsFile), nil)
}

func TestOpenRunDirNotWritable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	readOnly := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(readOnly, 0o555); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dir string
	}{
		{"under a regular file", filepath.Join(file, "run")},
		{"a regular file", file},
		{"read-only directory", readOnly},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.dir == readOnly && os.Geteuid() == 0 {
				t.Skip("root writes to read-only directories")
			}
			d, err := OpenRunDir(tt.dir)
			if err == nil {
				d.Close()
				t.Fatal("OpenRunDir succeeded")
			}
			msg := err.Error()
			t.Log(msg)
			if strings.Contains(msg, "\n") || !strings.Contains(msg, tt.dir) {
				t.Errorf("error %q is not one line naming %s", msg, tt.dir)
			}
			if strings.Count(msg, tt.dir) > 1 {
				t.Errorf("error %q repeats the path", msg)
			}
		})
	}
}
