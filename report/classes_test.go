package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/internal/testkit/recordtest"
	"github.com/toksweep/toksweep/sweep"
)

// classLevel is a level of c workers: ten "interactive" requests with
// TTFT 100, 110, …, 190 ms (times scale) and 10 tokens, ten "batch"
// ones with TTFT 1000, 1100, …, 1900 ms and 30 tokens, and one failed
// batch request.
func classLevel(c int, scale float64) sweep.Level {
	ms := func(v int) time.Duration { return time.Duration(scale * float64(v) * float64(time.Millisecond)) }
	var recs []client.Record
	for i := range 10 {
		start := time.Duration(i) * 10 * time.Millisecond
		recs = append(recs,
			recordtest.With(recordtest.Stream(start, ms(100+10*i), 20*time.Millisecond, 10), func(r *client.Record) { r.Class = "interactive" }),
			recordtest.With(recordtest.Stream(start, ms(1000+100*i), 20*time.Millisecond, 30), func(r *client.Record) { r.Class, r.Worker = "batch", 1 }))
	}
	recs = append(recs, recordtest.With(recordtest.Failed(client.HTTP5xx, 1, 0, 50*time.Millisecond), func(r *client.Record) { r.Class = "batch" }))
	return recordtest.Level(c, recs...)
}

var classSettings = Settings{Classes: []string{"interactive", "batch"}}

// TestClassFigures: each class row holds the level's figures over its
// requests alone (nearest-rank TTFT p95 of ten samples is the largest),
// the rows' requests and tokens add up to the level's, and a run without
// classes has no class rows.
func TestClassFigures(t *testing.T) {
	s := Summarize(classLevel(2, 1), classSettings)
	if len(s.Classes) != 2 {
		t.Fatalf("%d class rows, want 2", len(s.Classes))
	}
	in, batch := s.Classes[0], s.Classes[1]
	for _, tt := range []struct {
		name           string
		row            LevelStats
		ok, failed     int
		ttftP95        time.Duration
		tokensMean     float64
		tokMin, tokMax int
	}{
		{"interactive", in, 10, 0, 190 * time.Millisecond, 10, 10, 10},
		{"batch", batch, 10, 1, 1900 * time.Millisecond, 30, 30, 30},
		{"", s, 20, 1, 1800 * time.Millisecond, 20, 10, 30}, // the 19th of 20
	} {
		r := tt.row
		if r.Class != tt.name || r.RequestsOK != tt.ok || r.RequestsFailed != tt.failed || r.TTFTP95 != tt.ttftP95 ||
			r.CompletionTokensMean != tt.tokensMean || r.CompletionTokensMin != tt.tokMin || r.CompletionTokensMax != tt.tokMax {
			t.Errorf("row %q: class %q, ok %d, failed %d, TTFT p95 %v, tokens %v [%d, %d]; want %d, %d, %v, %v [%d, %d]", tt.name,
				r.Class, r.RequestsOK, r.RequestsFailed, r.TTFTP95, r.CompletionTokensMean, r.CompletionTokensMin, r.CompletionTokensMax,
				tt.ok, tt.failed, tt.ttftP95, tt.tokensMean, tt.tokMin, tt.tokMax)
		}
	}
	tokens := func(r LevelStats) float64 { return r.CompletionTokensMean * float64(r.RequestsOK) }
	if tokens(in)+tokens(batch) != tokens(s) || in.RequestsFailed+batch.RequestsFailed != s.RequestsFailed {
		t.Errorf("class rows' tokens %v + %v, want the level's %v", tokens(in), tokens(batch), tokens(s))
	}
	if plain := Summarize(classLevel(2, 1), Settings{}); plain.Classes != nil {
		t.Errorf("a run without classes has class rows: %+v", plain.Classes)
	}
}

// TestClassVerdicts: each class is judged against its own SLO, the level
// passes when every class does, a class the level sent nothing of fails,
// and the recommendation stops below the level a class fails at, naming
// the class that binds.
func TestClassVerdicts(t *testing.T) {
	slo := SLO{TTFTP95: time.Hour, Classes: []ClassSLO{{"interactive", SLO{TTFTP95: 150 * time.Millisecond}}, {"batch", SLO{TTFTP95: 2 * time.Second}}}}
	fast, slow := Summarize(classLevel(1, 0.5), classSettings), Summarize(classLevel(2, 1), classSettings)
	Judge(&fast, slo)
	Judge(&slow, slo)
	if !fast.SLO.Pass || !fast.Classes[0].SLO.Pass || !fast.Classes[1].SLO.Pass {
		t.Errorf("C=1: %+v, %+v, %+v; want every class passing", fast.SLO, fast.Classes[0].SLO, fast.Classes[1].SLO)
	}
	want := []string{"class interactive: ttft_p95 190ms > 150ms"}
	if slow.SLO.Pass || !slices.Equal(slow.SLO.Failed, want) || slow.Classes[0].SLO.Pass || !slow.Classes[1].SLO.Pass {
		t.Errorf("C=2: %+v (interactive %+v, batch %+v), want it failing on %q alone", slow.SLO, slow.Classes[0].SLO, slow.Classes[1].SLO, want)
	}
	rec := Recommend([]LevelStats{slow, fast}, slo)
	if rec.Recommended.Concurrency != 1 || rec.FirstFail.Concurrency != 2 || !slices.Equal(rec.FirstFailWhy, want) {
		t.Errorf("recommendation %+v, want C=1, failing at C=2 on class interactive", rec)
	}
	if s := rec.Sentence([]LevelStats{slow, fast}); !strings.Contains(s, "class interactive: ttft_p95 190ms > 150ms") {
		t.Errorf("the closing answer %q does not name the binding class", s)
	}
	missing := slo
	missing.Classes = append(slices.Clone(slo.Classes), ClassSLO{"tiny", SLO{TTFTP95: time.Second}})
	if r := CheckSLO(fast, missing); r.Pass || !slices.Contains(r.Failed, "class tiny: no request") {
		t.Errorf("a class with no request: %+v, want it failing", r)
	}
}

// TestClassRowsInFiles: levels.csv ends with the class column only in a
// run with classes, one row for the level (an empty class) and one per
// class; summary.json's level holds its classes' objects.
func TestClassRowsInFiles(t *testing.T) {
	s := Summarize(classLevel(2, 1), classSettings)
	var b bytes.Buffer
	w, err := NewLevelsCSV(&b, classSettings.Columns())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(s); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	last := len(rows[0]) - 1
	ok := slices.Index(rows[0], "requests_ok")
	if len(rows) != 4 || rows[0][last] != "class" || len(rows[0]) != len(LevelsCSVHeader)+1 {
		t.Fatalf("levels.csv %q, want the header with class last and three rows", rows)
	}
	for i, want := range [][2]string{{"", "20"}, {"interactive", "10"}, {"batch", "10"}} {
		if got := [2]string{rows[i+1][last], rows[i+1][ok]}; got != want {
			t.Errorf("row %d: class and requests_ok %q, want %q", i+1, got, want)
		}
	}
	var plain bytes.Buffer
	if w, err := NewLevelsCSV(&plain, Settings{}.Columns()); err != nil || w.Write(Summarize(classLevel(2, 1), Settings{})) != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "class") || strings.Count(plain.String(), "\n") != 2 {
		t.Errorf("levels.csv without classes:\n%s", plain.String())
	}
	var lj LevelJSON
	if err := json.Unmarshal(levelObject(&s), &lj); err != nil {
		t.Fatal(err)
	}
	if len(lj.Classes) != 2 || lj.Classes[0].Class != "interactive" || lj.Classes[1].RequestsFailed != 1 || lj.RequestsOK != 20 {
		t.Errorf("summary.json level: %+v", lj)
	}
}

// The tables show each level's class rows under it, "all" on the level's.
func TestClassRowsInTables(t *testing.T) {
	var b bytes.Buffer
	if err := WriteConsole(&b, []LevelStats{Summarize(classLevel(2, 1), classSettings)}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"class", "all", "interactive", "batch"} {
		if !strings.Contains(out, want) {
			t.Errorf("console lacks %q:\n%s", want, out)
		}
	}
}

// A run's classes, as summary.json's config records them, give back the
// class rows' settings and each class's SLO: its own, else the run's;
// the brief lines under a level show each class's figures and verdict.
func TestClassConfigRoundTrip(t *testing.T) {
	cfg := &RunConfig{SLO: NewSLOConfig(SLO{TTFTP95: 2 * time.Second}),
		Classes: []ClassConfig{{Name: "interactive", Share: 0.7, SLO: NewSLOConfig(SLO{TTFTP95: 150 * time.Millisecond})}, {Name: "batch", Share: 0.3}}}
	if got := cfg.Settings().Classes; !slices.Equal(got, classSettings.Classes) {
		t.Errorf("settings' classes %q, want %q", got, classSettings.Classes)
	}
	slo, ok := cfg.Objective()
	want := []ClassSLO{{"interactive", SLO{TTFTP95: 150 * time.Millisecond}}, {"batch", SLO{TTFTP95: 2 * time.Second}}}
	if !ok || len(slo.Classes) != 2 || slo.Classes[0].Name != want[0].Name || slo.Classes[0].SLO.TTFTP95 != want[0].SLO.TTFTP95 ||
		slo.Classes[1].SLO.TTFTP95 != want[1].SLO.TTFTP95 || slo.String() != "class interactive: TTFT p95 ≤ 150ms; class batch: TTFT p95 ≤ 2s" {
		t.Errorf("objective %+v (%v, %q), want the classes' SLOs %+v", slo, ok, slo.String(), want)
	}
	if c := NewSLOConfig(SLO{Classes: want}); c != nil {
		t.Errorf("config.slo of class SLOs alone: %+v, want none (each class records its own)", c)
	}
	s := Summarize(classLevel(2, 1), cfg.Settings())
	Judge(&s, slo)
	lines := ClassLines(s)
	for _, w := range []string{"\n  class interactive: 10 ok, 0 failed, TTFT p95 190.0 ms, decode p10 ", "SLO FAIL: ttft_p95 190ms > 150ms",
		"\n  class batch: 10 ok, 1 failed, TTFT p95 1900.0 ms", "SLO pass"} {
		if !strings.Contains(lines, w) {
			t.Errorf("class lines %q lack %q", lines, w)
		}
	}
	if ClassLines(Summarize(classLevel(2, 1), Settings{})) != "" {
		t.Error("class lines without classes")
	}
}
