package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/sweep"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

func goldenStats() []LevelStats {
	var stats []LevelStats
	for _, l := range goldenLevels() {
		stats = append(stats, Summarize(l, Settings{}))
	}
	return stats
}

func goldenSummary(stats []LevelStats) Summary {
	s := Summary{
		Tool: "toksweep", Version: "v0.0.0-test",
		URL: "http://127.0.0.1:8000/v1", Model: "kimi-k2.5-int4",
		Started:  time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
		Finished: time.Date(2026, 3, 1, 12, 0, 21, 500_000_000, time.UTC),
		Config: &RunConfig{
			URL: "http://127.0.0.1:8000/v1", Model: "kimi-k2.5-int4", API: "chat", Levels: []int{1, 4, 8, 16},
			Requests: 32, Repeat: 1, MaxTokens: 128, PromptSource: "default prompt, seed 0",
			RequestTimeout: "10m0s", ConnectTimeout: "10s",
		},
		EndReason: string(sweep.Canceled),
	}
	for _, st := range stats {
		s.Levels = append(s.Levels, NewLevelJSON(st))
	}
	return s
}

func TestGolden(t *testing.T) {
	stats := goldenStats()
	tests := []struct {
		file  string
		write func(*bytes.Buffer) error
	}{
		{"console.txt", func(b *bytes.Buffer) error { return WriteConsole(b, stats) }},
		{"levels.csv", func(b *bytes.Buffer) error {
			c, err := NewLevelsCSV(b, nil)
			for _, s := range stats {
				if err == nil {
					err = c.Write(s)
				}
			}
			return err
		}},
		{"summary.json", func(b *bytes.Buffer) error { return WriteSummaryJSON(b, goldenSummary(stats)) }},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			var got bytes.Buffer
			if err := tt.write(&got); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tt.file, got.Bytes())
		})
	}
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./report -update rewrites it)\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

// TestLevelJSONMatchesCSV keeps summary.json and levels.csv in step: every
// CSV column is a LevelJSON key (err_<class> under "errors") with the same
// value, and LevelJSON adds only "errors" and "health".
func TestLevelJSONMatchesCSV(t *testing.T) {
	for _, s := range goldenStats() {
		b, err := json.Marshal(NewLevelJSON(s))
		if err != nil {
			t.Fatal(err)
		}
		var obj map[string]any
		if err := json.Unmarshal(b, &obj); err != nil {
			t.Fatal(err)
		}
		errs := obj["errors"].(map[string]any)
		for col, cell := range figures(s) {
			v, ok := obj[col]
			if class, isErr := strings.CutPrefix(col, "err_"); isErr {
				v, ok = errs[class]
			}
			if !ok {
				t.Errorf("C=%d: column %s missing from LevelJSON", s.Concurrency, col)
				continue
			}
			if js := jsonCell(v); js != cell && !sameNumber(js, cell) {
				t.Errorf("C=%d: %s: csv %q, json %q", s.Concurrency, col, cell, js)
			}
			delete(obj, col)
		}
		delete(obj, "errors")
		delete(obj, "health")
		delete(obj, "server_metrics")
		if len(obj) > 0 {
			t.Errorf("LevelJSON keys not in levels.csv: %v", slices.Collect(func(yield func(string) bool) {
				for k := range obj {
					yield(k)
				}
			}))
		}
	}
}

// jsonCell renders a decoded JSON value the way levels.csv would, without
// fixed decimals (null is the empty cell).
func jsonCell(v any) string {
	if v == nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return strings.Trim(string(b), `"`)
}

// sameNumber reports whether a JSON number and a fixed-decimal CSV cell are
// the same value ("12.5" and "12.500").
func sameNumber(js, cell string) bool {
	var a, b float64
	return json.Unmarshal([]byte(js), &a) == nil && json.Unmarshal([]byte(cell), &b) == nil && a == b
}
