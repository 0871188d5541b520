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

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/promscrape"
	"github.com/toksweep/toksweep/sweep"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// goldenLevels is a fixed sweep covering every rendering path: a clean
// single stream, multi-token chunks with failures and reasoning, a
// client-limited level without usage, and an interrupted level with no
// successful request and no steady state.
func goldenLevels() []sweep.Level {
	// C=1: the seed story, five times, TTFT creeping up 5 ms a request.
	one := closedLoopOf(1, 5, 0, func(_, i int) client.Record {
		r := stream(0, 140*msec+time.Duration(i)*5*msec, 12280*time.Microsecond, 150)
		r.PromptTokens, r.End = 28, r.LastToken+time.Millisecond
		if i == 5 {
			r.FinishReason = "length"
		}
		return r
	})

	// C=4: 32 chunks of 2 tokens, reasoning for the first 8, an uneven last
	// gap; one 5xx and one timeout.
	four := closedLoopOf(4, 3, 40*msec, func(w, i int) client.Record {
		r := stream(0, 300*msec+time.Duration(w*10+i)*msec, 30*msec, 32)
		r.CompletionTokens, r.PromptTokens, r.ReasoningChunks = 64, 200, 8
		r.FirstContent = r.ChunkAt[8]
		r.ChunkAt[31] += time.Duration(w*4+i) * msec
		r.LastToken = r.ChunkAt[31]
		r.End = r.LastToken + 2*msec
		switch {
		case w == 1 && i == 2:
			return failed(client.HTTP5xx, w, 0, 20*msec)
		case w == 2 && i == 3:
			return failed(client.Timeout, w, 0, r.End)
		}
		return r
	})

	// C=8: no usage, and a client that lagged issuing requests and
	// timestamping tokens.
	eight := closedLoop(8, 2, 10*msec, 800*msec, 40*msec, 40, 200)
	for i := range eight {
		eight[i].HasUsage, eight[i].CompletionTokens = false, 0
	}

	// C=16, interrupted: two requests, canceled in flight, never overlapping.
	sixteen := []client.Record{
		failed(client.Canceled, 0, 0, 300*msec),
		failed(client.Canceled, 1, 400*msec, 900*msec),
	}

	levels := []sweep.Level{
		level(1, one...), level(4, four...), level(8, eight...), level(16, sixteen...),
	}
	levels[0].Health = sweep.Health{CPUSeconds: 0.1, WallSeconds: 10, GOMAXPROCS: 8, IssueLagMax: 200 * time.Microsecond, TimerLateMax: time.Millisecond, TimerLateP99: 300 * time.Microsecond}
	levels[1].Health = sweep.Health{CPUSeconds: 0.4, WallSeconds: 3.4, GOMAXPROCS: 8, IssueLagMax: 400 * time.Microsecond, TimerLateMax: 2 * time.Millisecond, TimerLateP99: 500 * time.Microsecond}
	// C=8: an issue lag alone (every worker stayed in flight) flags nothing;
	// a timer 12 ms late at p99, 30% of the 40 ms ITL, does.
	levels[2].Health = sweep.Health{CPUSeconds: 1.2, WallSeconds: 5.2, GOMAXPROCS: 8, IssueLagMax: 31 * time.Millisecond, TimerLateMax: 15 * time.Millisecond, TimerLateP99: 12 * time.Millisecond}
	// C=4 was scraped: 3 samples, no prefix-cache counters, no prefill histogram.
	levels[1].Server = &promscrape.LevelMetrics{
		Scrapes: 3, Running: promscrape.Gauge{Sum: 11, N: 3}, Waiting: promscrape.Gauge{Sum: 1, N: 3},
		KVUsage: promscrape.Gauge{Sum: 0.37, N: 3},
		TTFT:    promscrape.Histogram{Sum: 4 * 312500 * time.Microsecond, Count: 4},
		Queue:   promscrape.Histogram{Sum: 9 * time.Millisecond, Count: 4},
	}
	levels[2].EndReason = sweep.Deadline
	levels[3].EndReason = sweep.Canceled
	return levels
}

func goldenStats() []LevelStats {
	var stats []LevelStats
	for _, l := range goldenLevels() {
		stats = append(stats, Summarize(l))
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
			c, err := NewLevelsCSV(b)
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
