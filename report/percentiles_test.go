package report

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
)

func TestPercentileName(t *testing.T) {
	for p, want := range map[float64]string{50: "p50", 99: "p99", 99.9: "p999", 99.99: "p9999", 0.5: "p05", 100: "p100"} {
		if got := PercentileName(p); got != want {
			t.Errorf("PercentileName(%v) = %q, want %q", p, got, want)
		}
	}
}

// Without --percentiles nothing is added; a percentile the registry has is
// not repeated.
func TestExtraPercentileColumnsNames(t *testing.T) {
	if cols := ExtraPercentileColumns(nil); cols != nil {
		t.Errorf("no percentiles: %d columns", len(cols))
	}
	var names []string
	for _, c := range ExtraPercentileColumns([]float64{50, 99.9}) {
		names = append(names, c.Name)
	}
	want := []string{"ttft_p999_ms", "e2e_latency_p999_ms", "tpot_p999_ms", "itl_p999_ms", "decode_tps_p999"}
	if !slices.Equal(names, want) { // the p50s are all in the registry already
		t.Errorf("columns %v, want %v", names, want)
	}
}

// 1000 successful requests, request i (1-based) with TTFT i ms and then 2
// more tokens 1 ms apart, plus a warm-up and a failure that do not count.
// Nearest rank: p50 is the 500th value, p90 the 900th, p99.9 the 999th.
func TestSummarizePercentilesNearestRank(t *testing.T) {
	var recs []client.Record
	recs = append(recs, with(stream(0, 5000*msec, msec, 3), func(r *client.Record) { r.Warmup = true }))
	recs = append(recs, failed(client.HTTP5xx, 0, 0, 9000*msec))
	for i := 1; i <= 1000; i++ {
		recs = append(recs, stream(time.Duration(i)*10*msec, time.Duration(i)*msec, msec, 3))
	}
	l := level(4, recs...)
	s := Summarize(l, Settings{Percentiles: []float64{90, 99.9}})
	want := map[string]float64{
		"ttft_p90_ms": 900, "ttft_p999_ms": 999,
		"e2e_latency_p999_ms": 1001,                 // TTFT + 2 gaps
		"tpot_p90_ms":         1, "tpot_p999_ms": 1, // (End − first token) / (3 − 1)
		"itl_p90_ms": 1, "itl_p999_ms": 1,
		"decode_tps_p90": 1000, "decode_tps_p999": 1000, // 2 tokens in 2 ms
	}
	for name, v := range want {
		if got, ok := s.Extra[name]; !ok || got != v {
			t.Errorf("%s = %v (present %v), want %v", name, got, ok, v)
		}
	}
	if plain := Summarize(l, Settings{}); plain.Extra != nil { // without --percentiles, no extra values
		t.Errorf("Extra without percentiles: %v", plain.Extra)
	}
	if len(s.Extra) != len(ExtraPercentileColumns([]float64{90, 99.9})) {
		t.Errorf("Extra has %d values: %v", len(s.Extra), s.Extra)
	}
	if _, dup := s.Extra["e2e_latency_p90_ms"]; dup || Ms(s.E2ELatencyP90) != 902 { // the registry's own column
		t.Errorf("e2e p90 in Extra %v, registry %v, want the registry's 902 only", dup, Ms(s.E2ELatencyP90))
	}

	// levels.csv: the registry's header, then the extra columns, in order.
	var b bytes.Buffer
	extra := ExtraPercentileColumns([]float64{90, 99.9})
	c, err := NewLevelsCSV(&b, extra)
	if err == nil {
		err = c.Write(s)
	}
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	n := len(LevelsCSVHeader)
	if !slices.Equal(rows[0][:n], LevelsCSVHeader) || rows[0][n] != "ttft_p90_ms" || rows[0][n+1] != "ttft_p999_ms" || rows[1][n+1] != "999.000" {
		t.Errorf("header tail %v, row tail %v", rows[0][n:], rows[1][n:])
	}
	// summary.json has them too.
	if j := string(levelObject(&s)); !strings.Contains(j, `"ttft_p999_ms":999`) {
		t.Errorf("summary level lacks ttft_p999_ms: %s", j)
	}
}

// TestRunConfigSettings: a saved config's settings are its reader and
// percentiles; a run saved without a config has the zero Settings, whose
// reader is ReadingSpeed.
func TestRunConfigSettings(t *testing.T) {
	c := &RunConfig{ReadingSpeed: 12, Percentiles: []float64{99.9}}
	if s := c.Settings(); s.ReadingSpeed != 12 || !slices.Equal(s.Percentiles, []float64{99.9}) || s.Reader() != 12 || len(s.Columns()) != 5 {
		t.Errorf("settings %+v, reader %v, %d columns", s, s.Reader(), len(s.Columns()))
	}
	if s := (*RunConfig)(nil).Settings(); s.ReadingSpeed != 0 || s.Percentiles != nil || s.Reader() != ReadingSpeed || s.Columns() != nil {
		t.Errorf("nil config: settings %+v", s)
	}
}
