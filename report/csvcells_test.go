package report

import (
	"encoding/csv"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client/promscrape"
)

// fillFloats sets every float64 field of v (a struct, nested structs
// included) to f.
func fillFloats(v reflect.Value, f float64) {
	for i := range v.NumField() {
		switch fv := v.Field(i); fv.Kind() {
		case reflect.Float64:
			fv.SetFloat(f)
		case reflect.Struct:
			fillFloats(fv, f)
		}
	}
}

// definedStats is a level where every figure is defined: every float 1.5,
// every time 7ms, every count 3, the server scraped, an SLO judged.
func definedStats() LevelStats {
	s := LevelStats{Concurrency: 4, Repeat: 1, EndReason: "completed", RequestsOK: 3, TokenSource: TokensUsage,
		WindowEnd: 2 * time.Second, CompletionTokensMin: 3, CompletionTokensMax: 3, ClientLimitedReason: "in-flight",
		SLO: &SLOResult{Failed: []string{"x"}}, Server: ServerStats{Scraped: true, Scrapes: 3},
		GPU: GPUStats{Sampled: true, GPUTotals: promscrape.GPUTotals{GPUs: 2, EnergySource: "counter", Incomplete: "x"}}}
	fillFloats(reflect.ValueOf(&s).Elem(), 1.5)
	s.TTFTP50, s.TTFTP95, s.TTFTP99, s.TTFCP50 = 7*time.Millisecond, 7*time.Millisecond, 7*time.Millisecond, 7*time.Millisecond
	s.E2ELatencyP50, s.E2ELatencyP90, s.E2ELatencyP99 = 7*time.Millisecond, 7*time.Millisecond, 7*time.Millisecond
	s.ITLP50, s.ITLP99, s.ITLMax = 7*time.Millisecond, 7*time.Millisecond, 7*time.Millisecond
	s.Server.TTFTMean, s.Server.QueueMean, s.Server.PrefillMean = 7*time.Millisecond, 7*time.Millisecond, 7*time.Millisecond
	s.Unstable, s.UnstableReason = true, "x"
	ss := &s.Session
	ss.TTFTTurn1P50, ss.TTFTTurn1P95, ss.TTFTLaterP50, ss.TTFTLaterP95 = 7*time.Millisecond, 7*time.Millisecond, 7*time.Millisecond, 7*time.Millisecond
	ss.DurationP50, ss.DurationP95 = 7*time.Millisecond, 7*time.Millisecond
	ss.Sessions, ss.SessionsFailed, ss.Failures = 3, 1, newErrorCounts()
	ss.Failures.add("timeout")
	return s
}

// badCell reports a cell that a spreadsheet would not read as a number or
// as no value.
func badCell(cell string) bool {
	l := strings.ToLower(cell)
	return strings.Contains(l, "nan") || strings.Contains(l, "inf")
}

// TestLevelsCSVCells: a level whose every figure is defined has no empty
// cell, and a level whose every float is NaN or ±Inf prints empty cells,
// never NaN or Inf.
func TestLevelsCSVCells(t *testing.T) {
	for i, cell := range levelRow(definedStats()) {
		if cell == "" || badCell(cell) {
			t.Errorf("defined level: %s = %q", LevelsCSVHeader[i], cell)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		s := definedStats()
		fillFloats(reflect.ValueOf(&s).Elem(), f)
		row := levelRow(s)
		for i, cell := range row {
			if badCell(cell) {
				t.Errorf("floats %v: %s = %q", f, LevelsCSVHeader[i], cell)
			}
		}
		if got := row[colIndex(t, "decode_tps_p50")]; got != "" {
			t.Errorf("floats %v: decode_tps_p50 = %q, want the empty cell", f, got)
		}
	}
}

// TestSavedRunCSVCells scans the levels.csv of a real simulator run: no
// NaN or Inf anywhere, and every figure of a level with successful
// requests is there (the server_* columns are empty when not scraped, the
// session figures in a run without sessions, the length errors outside a
// trace replay, the SLO and client-limit
// texts when there is nothing to say, the open-loop figures and goodput).
func TestSavedRunCSVCells(t *testing.T) {
	f, err := os.Open("../testdata/runs/small/levels.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 2 {
		t.Fatalf("%d rows", len(rows))
	}
	// Undefined here: the open-loop figures in a closed loop, goodput
	// without an SLO.
	openOnly := []string{"rate", "offered_rps", "achieved_rps", "dispatch_delay_p50_ms", "dispatch_delay_p99_ms",
		"dispatch_delay_max_ms", "ttft_rise_ms", "unstable", "unstable_reason", "goodput_rps", "goodput_ratio"}
	mayBeEmpty := func(name string) bool {
		return strings.HasPrefix(name, "server_") || strings.HasPrefix(name, "gpu_") || name == "slo_failed" || name == "client_limited_reason" ||
			slices.Contains(openOnly, name) ||
			slices.ContainsFunc(sessionColumns(), func(c Column) bool { return c.Name == name }) ||
			slices.ContainsFunc(traceColumns(), func(c Column) bool { return c.Name == name })
	}
	okCol := slices.Index(rows[0], "requests_ok")
	for _, row := range rows[1:] {
		if ok, err := strconv.Atoi(row[okCol]); err != nil || ok == 0 {
			t.Fatalf("saved run: requests_ok %q; want a run whose levels all succeeded", row[okCol])
		}
		for i, cell := range row {
			name := rows[0][i]
			if badCell(cell) || cell == "" && !mayBeEmpty(name) {
				t.Errorf("C=%s: %s = %q", row[0], name, cell)
			}
		}
	}
}

func colIndex(t *testing.T, name string) int {
	t.Helper()
	for i, h := range LevelsCSVHeader {
		if h == name {
			return i
		}
	}
	t.Fatalf("no column %s", name)
	return -1
}

// TestCSVUnits: every levels.csv column that holds a number has a unit in
// the docs' table (the repeat is an index); texts need none.
func TestCSVUnits(t *testing.T) {
	s := definedStats()
	for _, c := range ColumnsIn(InCSV) {
		if k := c.Value(&s).kind; c.Unit == "" && k != textValue && c.Name != "repeat" {
			t.Errorf("column %s (kind %d) has no unit", c.Name, k)
		}
	}
}
