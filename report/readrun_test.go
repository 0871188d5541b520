package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/sweep"
)

// TestReadRunDirRoundTrip saves the golden sweep with RunDir, reads it back
// and checks that the figures recomputed from the saved records render the
// same levels.csv and summary.json, byte for byte.
func TestReadRunDirRoundTrip(t *testing.T) {
	tests := []struct {
		name       string
		listed     int // levels written to summary.json
		slo        SLO
		wantWarned int
	}{
		{"complete", 4, SLO{}, 0},
		{"with an SLO", 4, SLO{DecodeTPS: 50, TTFTP95: 400 * time.Millisecond, ErrorRate: new(0.1)}, 0},
		{"summary behind records", 3, SLO{}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			levels, stats := goldenLevels(), goldenStats()
			for i := range stats {
				if tt.slo.Set() {
					v := CheckSLO(stats[i], tt.slo)
					stats[i].SLO = &v
				}
			}
			d, err := OpenRunDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			for i, l := range levels {
				if err := d.AddLevel(l, stats[i]); err != nil {
					t.Fatal(err)
				}
			}
			if err := d.WriteSummary(goldenSummary(stats[:tt.listed])); err != nil {
				t.Fatal(err)
			}
			d.Close()

			run, err := ReadRunDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(run.Warnings) != tt.wantWarned {
				t.Errorf("warnings %q, want %d", run.Warnings, tt.wantWarned)
			}
			if len(run.Levels) != len(levels) {
				t.Fatalf("read %d levels, want %d", len(run.Levels), len(levels))
			}
			got := run.Stats()
			// An unlisted level's end reason and health are unknown.
			want := stats
			for i := tt.listed; i < len(want); i++ {
				l := levels[i]
				l.EndReason, l.Health = "", sweep.Health{}
				want[i] = Summarize(l)
			}
			if g, w := csvOf(t, got), csvOf(t, want); g != w {
				t.Errorf("levels.csv differs after the round trip:\n got %s\nwant %s", g, w)
			}
			if tt.listed == len(levels) {
				orig, _ := os.ReadFile(filepath.Join(dir, LevelsFile))
				if g := csvOf(t, got); g != string(orig) {
					t.Errorf("re-rendered levels.csv differs from the saved one:\n got %s\nwant %s", g, orig)
				}
				var b bytes.Buffer
				WriteSummaryJSON(&b, run.Resummarized(got))
				saved, _ := os.ReadFile(filepath.Join(dir, SummaryFile))
				if b.String() != string(saved) {
					t.Errorf("re-rendered summary.json differs from the saved one")
				}
			}
			for i, l := range run.Levels {
				if l.Start != levels[i].Start || l.End != levels[i].End {
					t.Errorf("level %d spans [%v, %v], want [%v, %v]", i, l.Start, l.End, levels[i].Start, levels[i].End)
				}
			}
		})
	}
}

func csvOf(t *testing.T, stats []LevelStats) string {
	t.Helper()
	var b bytes.Buffer
	c, err := NewLevelsCSV(&b)
	for _, s := range stats {
		if err == nil {
			err = c.Write(s)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestReadRunDirErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"no summary", map[string]string{RequestsFile: ""}, SummaryFile},
		{"bad summary", map[string]string{SummaryFile: "{", RequestsFile: ""}, SummaryFile},
		{"no records", map[string]string{SummaryFile: "{}"}, RequestsFile},
		{"bad records", map[string]string{SummaryFile: "{}", RequestsFile: "{}\nnope\n"}, "line 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := ReadRunDir(dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}
