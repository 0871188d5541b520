package rundir

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// TestRecordLinesCarrySmoothness: requests.jsonl has each request's
// max_gap_ms, stalls and rebuffer_ratio, null when undefined.
func TestRecordLinesCarrySmoothness(t *testing.T) {
	var buf bytes.Buffer
	recs := []client.Record{chunked(5, 0, 100, 200, 1500, 1600), failed(client.HTTP5xx, 0, 0, 10*msec)}
	if err := writeRecords(&buf, recs); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{"max_gap_ms": 1300.0, "stalls": 1.0, "rebuffer_ratio": 1.2},
		{"max_gap_ms": nil, "stalls": 0.0, "rebuffer_ratio": nil},
	}
	for i, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		for k, v := range want[i] {
			if m[k] != v {
				t.Errorf("line %d: %s = %v, want %v", i+1, k, m[k], v)
			}
		}
	}
}

// A rate run round-trips: its levels are rebuilt by rate from
// requests.jsonl and re-render levels.csv and summary.json byte for byte,
// goodput included.
func TestReadRunDirRoundTripRates(t *testing.T) {
	levels := []sweep.Level{
		openLevel(5, 30, constant(0), constant(200*msec)),
		openLevel(10, 30, constant(2*msec), constant(300*msec)),
		openLevel(20, 30, constant(0), func(i int) time.Duration { return 300*msec + time.Duration(i)*40*msec }),
	}
	slo := report.SLO{TTFTP95: 500 * time.Millisecond}
	var stats []report.LevelStats
	for _, l := range levels {
		s := report.Summarize(l, report.Settings{})
		v := report.CheckSLO(s, slo)
		s.SLO = &v
		stats = append(stats, s)
	}
	dir := t.TempDir()
	d, err := OpenRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range levels {
		if err := d.AddLevel(l, stats[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.WriteSummary(goldenSummary(stats)); err != nil {
		t.Fatal(err)
	}
	d.Close()
	run, err := ReadRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Levels) != 3 || run.Levels[2].Rate != 20 || len(run.Levels[2].Records) != 30 {
		t.Fatalf("read %d levels; the last at rate %v with %d records", len(run.Levels), run.Levels[len(run.Levels)-1].Rate, len(run.Levels[len(run.Levels)-1].Records))
	}
	got := run.Stats()
	checkSavedRerender(t, dir, run, got)
	if !got[2].Unstable || got[0].Unstable || got[0].SLO.GoodputRatio != 1 || got[2].SLO.GoodputRatio >= 0.5 {
		t.Errorf("unstable %v %v; goodput ratios %v, %v", got[0].Unstable, got[2].Unstable, got[0].SLO.GoodputRatio, got[2].SLO.GoodputRatio)
	}
	rec := report.Recommend(got, slo)
	if rec.Recommended.Load != 10 || !rec.Recommended.IsOpen() || rec.Recommended.Concurrency != 0 {
		t.Errorf("recommended %v, want rate 10 uncapped", rec.Recommended)
	}
	if s := rec.Sentence(got); !strings.Contains(s, "sustains 10 req/s") || !strings.Contains(s, "rate=20/s (unstable") {
		t.Errorf("sentence %q", s)
	}
}
