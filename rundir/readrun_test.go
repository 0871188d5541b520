package rundir

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// readers are the two ways to read a run back: records in memory, and
// records left on disk.
var readers = []struct {
	name string
	read func(string) (SavedRun, error)
}{{"ReadRunDir", ReadRunDir}, {"ScanRunDir", ScanRunDir}}

// TestReadRunDirRoundTrip saves the golden sweep with RunDir, reads it back
// (both readers) and checks that the figures recomputed from the saved
// records render the same levels.csv and summary.json, byte for byte.
func TestReadRunDirRoundTrip(t *testing.T) {
	for _, rd := range readers {
		t.Run(rd.name, func(t *testing.T) { testRoundTrip(t, rd.read) })
	}
}

func testRoundTrip(t *testing.T, read func(string) (SavedRun, error)) {
	tests := []struct {
		name       string
		listed     int // levels written to summary.json
		slo        report.SLO
		wantWarned int
	}{
		{"complete", 4, report.SLO{}, 0},
		{"with an SLO", 4, report.SLO{DecodeTPS: 50, TTFTP95: 400 * time.Millisecond, ErrorRate: new(0.1)}, 0},
		{"summary behind records", 3, report.SLO{}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			levels, stats := goldenLevels(), goldenStats()
			for i := range stats {
				if tt.slo.Set() {
					v := report.CheckSLO(stats[i], tt.slo)
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

			run, err := read(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(run.Warnings) != tt.wantWarned {
				t.Errorf("warnings %q, want %d", run.Warnings, tt.wantWarned)
			}
			// A level summary.json does not list is an unfinished tail.
			if len(run.Levels) != tt.listed {
				t.Fatalf("read %d levels, want the %d listed", len(run.Levels), tt.listed)
			}
			got := run.Stats()
			if err := run.ScanErr(); err != nil {
				t.Fatal(err)
			}
			want := stats[:tt.listed]
			if g, w := csvOf(t, got), csvOf(t, want); g != w {
				t.Errorf("levels.csv differs after the round trip:\n got %s\nwant %s", g, w)
			}
			if tt.listed == len(levels) {
				checkSavedRerender(t, dir, run, got)
			}
			for i, l := range run.Levels {
				if l.Start != levels[i].Start || l.End != levels[i].End {
					t.Errorf("level %d spans [%v, %v], want [%v, %v]", i, l.Start, l.End, levels[i].Start, levels[i].End)
				}
			}
		})
	}
}

func csvOf(t *testing.T, stats []report.LevelStats) string {
	t.Helper()
	var b bytes.Buffer
	c, err := report.NewLevelsCSV(&b, nil)
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
	for _, rd := range readers {
		for _, tt := range tests {
			t.Run(rd.name+"/"+tt.name, func(t *testing.T) {
				dir := t.TempDir()
				for name, body := range tt.files {
					if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				_, err := rd.read(dir)
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("error %v, want one mentioning %q", err, tt.want)
				}
			})
		}
	}
}

// ScanRunDir finds a level whose lines are not together (two levels'
// records interleaved, as a hand-edited file may have them) and ignores a
// cut-short last line with a warning, as ReadRunDir does; each level's
// Source gives its records, anew on every pass.
func TestScanRunDirInterleavedAndPartial(t *testing.T) {
	dir := t.TempDir()
	levels := goldenLevels()[:2]
	var recs []client.Record
	a, b := levels[0].Records, levels[1].Records
	for i := 0; i < max(len(a), len(b)); i++ {
		if i < len(a) {
			recs = append(recs, a[i])
		}
		if i < len(b) {
			recs = append(recs, b[i])
		}
	}
	var buf bytes.Buffer
	if err := writeRecords(&buf, recs); err != nil {
		t.Fatal(err)
	}
	buf.WriteString(`{"concurrency": 1, "start_ns": 12`) // killed mid-line
	if err := os.WriteFile(filepath.Join(dir, RequestsFile), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var sum bytes.Buffer
	report.WriteSummaryJSON(&sum, goldenSummary([]report.LevelStats{report.Summarize(levels[0], report.Settings{}), report.Summarize(levels[1], report.Settings{})}))
	if err := os.WriteFile(filepath.Join(dir, SummaryFile), sum.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	mem, err := ReadRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	run, err := ScanRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Warnings) != 1 || !strings.Contains(run.Warnings[0], "partial line") || len(mem.Warnings) != 1 {
		t.Errorf("warnings %q (in memory: %q), want one about the partial line", run.Warnings, mem.Warnings)
	}
	if len(run.Levels) != 2 {
		t.Fatalf("%d levels, want 2", len(run.Levels))
	}
	for i, l := range run.Levels {
		if l.Records != nil {
			t.Errorf("level %d holds %d records in memory, want none", i, len(l.Records))
		}
		for pass := range 2 {
			n := 0
			for r := range l.All() {
				if r.Concurrency != levels[i].Concurrency || r.Seq != levels[i].Records[n].Seq {
					t.Fatalf("level %d pass %d record %d: C=%d seq %d, want C=%d seq %d", i, pass, n,
						r.Concurrency, r.Seq, levels[i].Concurrency, levels[i].Records[n].Seq)
				}
				n++
			}
			if n != len(levels[i].Records) {
				t.Errorf("level %d pass %d: %d records, want %d", i, pass, n, len(levels[i].Records))
			}
		}
	}
	if g, w := csvOf(t, run.Stats()), csvOf(t, mem.Stats()); g != w {
		t.Errorf("figures from disk differ from those in memory:\n got %s\nwant %s", g, w)
	}
	if err := run.ScanErr(); err != nil {
		t.Error(err)
	}
	if err := os.Remove(filepath.Join(dir, RequestsFile)); err != nil {
		t.Fatal(err)
	}
	for range run.Levels[0].All() {
	}
	if err := run.ScanErr(); err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("records gone: ScanErr %v, want one line", err)
	}
}

// A level summary.json lists but requests.jsonl has no record of (one
// aborted before its first request) reads back as an empty level, with
// both readers.
func TestReadRunDirListedLevelWithoutRecords(t *testing.T) {
	for _, rd := range readers {
		t.Run(rd.name, func(t *testing.T) {
			dir := t.TempDir()
			levels := goldenLevels()[:2]
			empty := sweep.Level{Concurrency: 64, EndReason: sweep.Aborted}
			stats := []report.LevelStats{report.Summarize(levels[0], report.Settings{}), report.Summarize(empty, report.Settings{}), report.Summarize(levels[1], report.Settings{})}
			var buf bytes.Buffer
			if err := writeRecords(&buf, append(slices.Clone(levels[0].Records), levels[1].Records...)); err != nil {
				t.Fatal(err)
			}
			var sum bytes.Buffer
			report.WriteSummaryJSON(&sum, goldenSummary(stats))
			for name, b := range map[string][]byte{RequestsFile: buf.Bytes(), SummaryFile: sum.Bytes()} {
				if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			run, err := rd.read(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(run.Levels) != 3 || len(run.Warnings) != 0 {
				t.Fatalf("%d levels, warnings %q; want 3 and none", len(run.Levels), run.Warnings)
			}
			if g, w := csvOf(t, run.Stats()), csvOf(t, stats); g != w {
				t.Errorf("figures read back differ:\n got %s\nwant %s", g, w)
			}
		})
	}
}
