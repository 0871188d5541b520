package htmlreport

import (
	"bytes"
	"encoding/base64"
	"html"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

func testStats() []report.LevelStats {
	var stats []report.LevelStats
	for i, c := range []int{1, 4, 16} {
		stats = append(stats, report.LevelStats{
			Concurrency: c, RequestsOK: 8 * c, EndReason: sweep.Completed,
			DecodeTPSP50: 300 / float64(i+1), DecodeTPSP10: 280 / float64(i+1), DecodeTPSMean: 290 / float64(i+1),
			E2ETPSP50: 250 / float64(i+1), AggregateOutputTPS: 300 * float64(c) / float64(i+1),
			AggregateTotalTPS: 320 * float64(c) / float64(i+1), RequestsPerS: float64(c), InflightMean: float64(c),
			TTFTP50: time.Duration(20+10*i) * time.Millisecond, TTFTP95: time.Duration(30+10*i) * time.Millisecond,
			TTFTP99: time.Duration(40+10*i) * time.Millisecond, ITLP50: 3 * time.Millisecond, ITLP99: 9 * time.Millisecond,
			WindowEnd: 2 * time.Second,
		})
	}
	stats[2].ClientLimited, stats[2].ClientLimitedReason = true, "in-flight 12.00 of C=16"
	return stats
}

func testSummary() report.Summary {
	return report.Summary{
		Tool: "toksweep", Version: "v0.0.0-test", URL: "http://127.0.0.1:8000/v1", Model: "m<odel>",
		Started: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), EndReason: "completed",
		Config: &report.RunConfig{Levels: []int{1, 4, 16}, MaxTokens: 128},
	}
}

func TestWrite(t *testing.T) {
	failed := testStats()
	failed[0].RequestsOK, failed[0].RequestsFailed = 0, 8
	failed[0].DecodeTPSP50, failed[0].TTFTP50 = math.NaN(), report.NoSample
	tests := []struct {
		name      string
		stats     []report.LevelStats
		opts      Options
		want, not []string
	}{
		{"plain", testStats(), Options{},
			[]string{"m&lt;odel&gt;", "<td class=\" flag\">16.00</td>", "C=16 may have been client-limited: in-flight 12.00 of C=16", "&#34;max_tokens&#34;: 128", "<caption>Single stream (what one user sees", "finished -", "<figcaption>What one user sees while tokens stream (decode)"},
			[]string{`class="answer"`, "m<odel>", "SLO:"}},
		{"SLO", testStats(), Options{SLO: &report.SLO{DecodeTPS: 100}, Answer: "serves 4 users"},
			[]string{`<p class="answer">serves 4 users</p>`}, []string{"SLO: serves"}},
		{"failed level", failed, Options{}, []string{"<td class=\" flag\">8</td>", "<td class=\"\">-</td>"}, nil},
		{"answer without an SLO", testStats(), Options{Answer: "Aggregate throughput saturates beyond 4"},
			[]string{`<p class="answer">Aggregate throughput saturates beyond 4</p>`}, []string{"SLO:", ">SLO</th>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Write(&b, testSummary(), tt.stats, tt.opts); err != nil {
				t.Fatal(err)
			}
			page := b.String()
			for _, w := range tt.want {
				if !strings.Contains(page, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(page, n) {
					t.Errorf("page contains %q", n)
				}
			}
			want := 5
			if slices.ContainsFunc(tt.stats, func(s report.LevelStats) bool { return s.RequestsFailed > 0 }) {
				want++ // the error chart
			}
			if n := strings.Count(page, `src="data:image/svg&#43;xml;base64,`); n != want {
				t.Errorf("%d embedded charts, want %d", n, want)
			}
			text := html.UnescapeString(page)
			for _, w := range []string{"What the figures mean", "<dt>TTFT (time to first token)</dt>", `<a href="` + MetricsURL + `">`} {
				if !strings.Contains(text, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			// Only the figures shown are defined (no open-loop figure in a
			// closed loop), in words: no Go identifier or test name.
			for _, n := range []string{"<dt>dispatch p99</dt>", "<dt>stability</dt>", "report.", "internal/", "Test", "ChunkAt"} {
				if strings.Contains(text, n) {
					t.Errorf("page contains %q", n)
				}
			}
		})
	}
}

func TestWriteAll(t *testing.T) {
	dir := t.TempDir()
	if err := WriteAll(dir, testSummary(), testStats(), Options{SLO: &report.SLO{DecodeTPS: 100}}); err != nil {
		t.Fatal(err)
	}
	charts, _ := filepath.Glob(filepath.Join(dir, ChartsDir, "*"))
	if len(charts) != 10 {
		t.Errorf("%d chart files, want 10: %v", len(charts), charts)
	}
	if fi, err := os.Stat(filepath.Join(dir, File)); err != nil || fi.Size() < 20_000 {
		t.Errorf("report.html: %v", err)
	}
	// The page draws each chart by the very SVG of its file (rendered once).
	b, err := os.ReadFile(filepath.Join(dir, File))
	if err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(string(b)) // the src attributes' "+" are "&#43;"
	svgs, _ := filepath.Glob(filepath.Join(dir, ChartsDir, "*.svg"))
	for _, path := range svgs {
		svg, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(page, "data:image/svg+xml;base64,"+base64.StdEncoding.EncodeToString(svg)) {
			t.Errorf("report.html does not draw %s", filepath.Base(path))
		}
	}
	if len(svgs) != 5 {
		t.Errorf("%d SVG files, want 5", len(svgs))
	}
	if err := WriteAll(filepath.Join(dir, File, "x"), testSummary(), testStats(), Options{}); err == nil {
		t.Error("WriteAll into a file's subdirectory succeeded")
	}
}

// TestWriteAllCharts: Options.Charts chooses the chart files, SVG only or
// none, and report.html shows every chart whatever it says.
func TestWriteAllCharts(t *testing.T) {
	for _, tc := range []struct {
		charts string
		files  int
	}{{"svg", 5}, {"none", 0}} {
		dir := t.TempDir()
		if err := WriteAll(dir, testSummary(), testStats(), Options{Charts: tc.charts}); err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join(dir, ChartsDir, "*"))
		for _, f := range files {
			if filepath.Ext(f) != ".svg" {
				t.Errorf("--charts %s wrote %s", tc.charts, f)
			}
		}
		if len(files) != tc.files {
			t.Errorf("--charts %s: %d chart files, want %d: %v", tc.charts, len(files), tc.files, files)
		}
		page, err := os.ReadFile(filepath.Join(dir, File))
		if n := strings.Count(string(page), `src="data:image/svg&#43;xml;base64,`); err != nil || n != 5 {
			t.Errorf("--charts %s: report.html embeds %d charts (%v), want 5", tc.charts, n, err)
		}
	}
	err := WriteAll(t.TempDir(), testSummary(), testStats(), Options{Charts: "gif"})
	if want := `charts "gif": want png or svg, comma-separated, or none`; err == nil || err.Error() != want {
		t.Errorf("Charts gif: %v, want %s", err, want)
	}
}

// TestTablesShowConsoleColumns: report.html shows every table the console
// shows, with every column (its levels.csv name on hover) and every cell,
// and the console's footnotes.
func TestTablesShowConsoleColumns(t *testing.T) {
	stats := testStats()
	stats[1].Repeat, stats[1].TokenSource = 1, report.TokensMixed
	stats[1].SLO = &report.SLOResult{Failed: []string{"ttft_p95_ms 40 > 30"}}
	stats[2].Server = report.ServerStats{Scraped: true, Scrapes: 4, RunningMean: 15.5, WaitingMean: math.NaN(),
		KVUsageMean: 0.25, PrefixHitRate: math.NaN(), TTFTMean: 31 * time.Millisecond, QueueMean: report.NoSample, PrefillMean: report.NoSample}
	var b bytes.Buffer
	if err := Write(&b, testSummary(), stats, Options{}); err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(b.String())
	tables := report.LevelTables(stats)
	if len(tables) != 4 {
		t.Fatalf("%d tables, want single, smoothness, aggregate and server", len(tables))
	}
	for _, lt := range tables {
		var heads []string
		for _, c := range lt.Cols {
			heads = append(heads, `title="`+c.Name+`">`+c.Head+"</th>")
		}
		for _, g := range lt.Groups {
			heads = append(heads, ">"+g.Title+"</th>")
		}
		var cells []string
		for _, row := range lt.Rows {
			for _, c := range row {
				cells = append(cells, ">"+c.Text+"</td>")
			}
		}
		for _, want := range append(append([]string{"<caption>" + lt.Title}, heads...), cells...) {
			if !strings.Contains(page, want) {
				t.Errorf("report.html lacks %q", want)
			}
		}
	}
	for _, note := range report.Footnotes(stats) {
		if !strings.Contains(page, note) {
			t.Errorf("report.html lacks the footnote %q", note)
		}
	}
}

// TestSectionOrder: the page opens with the answer, then the charts, the
// tables, the configuration and the definitions.
func TestSectionOrder(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, testSummary(), testStats(), Options{Answer: "the answer"}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	sections := []string{`<p class="answer">the answer</p>`, "<h2>Charts</h2>", "<img src=", "<h2>Levels</h2>",
		"<caption>Single stream", "<h2>Configuration</h2>", "<h2>What the figures mean</h2>"}
	at := -1
	for _, s := range sections {
		i := strings.Index(page, s)
		if i < 0 {
			t.Fatalf("page lacks %q", s)
		}
		if i < at {
			t.Errorf("%q comes before the section above it", s)
		}
		at = i
	}
	if h1, answer := strings.Index(page, "<h1>"), strings.Index(page, "the answer"); !(h1 < answer && answer < strings.Index(page, `<p class="meta">`)) {
		t.Error("the answer does not follow the title at once")
	}
}

// TestEveryShownColumnDefined: every column the tables can show, in a
// closed loop and an open loop, with repeats, an SLO and the server's
// metrics, has a definition in words on the page. A column added to
// report without a glossary term fails here.
func TestEveryShownColumnDefined(t *testing.T) {
	t.Parallel()
	closed := testStats()
	open := testStats()
	for i := range open {
		open[i].Rate, open[i].Repeat = float64(i+1), i%2
		open[i].SLO = &report.SLOResult{Pass: i == 0}
		open[i].Server.Scraped = true
	}
	for _, stats := range [][]report.LevelStats{closed, open} {
		shown, undefined := definitions(tables(stats))
		if len(undefined) > 0 {
			t.Errorf("columns without a definition: %q", undefined)
		}
		if len(shown) == 0 {
			t.Error("no definition shown")
		}
	}
	for _, term := range glossary {
		if strings.Contains(term.Text, "_") || strings.Contains(term.Text, "report.") {
			t.Errorf("%s: %q reads like code", term.Name, term.Text)
		}
	}
}

// TestWriteTierTable checks the page draws summary.json's tier table, its
// cells as the console's (report.TierTable), and nothing without tiers.
func TestWriteTierTable(t *testing.T) {
	stats := testStats()
	sum := testSummary()
	sum.Tiers = report.NewTiersJSON(report.JudgeTiers(stats, []report.Tier{{Name: "fast", SLO: report.SLO{DecodeTPS: 200}}, {Name: "any", SLO: report.SLO{DecodeTPS: 1}}}), stats)
	var b bytes.Buffer
	if err := Write(&b, sum, stats, Options{Answer: "x"}); err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(b.String())
	for _, w := range []string{
		`<p class="answer">x</p><div class="scroll"><table class="tiers">` + "\n<caption>" + report.TierTableTitle + "</caption>",
		`<th class="l">tier</th><th class="l">SLO</th><th class="l">level</th><th>decode p50</th>`,
		`<tr><td class="l">fast</td><td class="l">decode ≥ 200 tok/s (p10)</td><td class="l">C=1</td><td>300.0</td><td>280.0</td><td>30</td><td>300</td><td class="l">fails at C=4</td></tr>`,
		`<tr><td class="l">any</td><td class="l">decode ≥ 1 tok/s (p10)</td><td class="l">C=16</td>`,
	} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	if strings.Contains(page, "load-seconds") {
		t.Error("given levels: the page states a search's cost")
	}
	b.Reset()
	sum.TierSearch = &report.TierSearchJSON{Search: "--levels auto", Levels: 3, LoadSeconds: 1.5, SeparateLevels: 5, SeparateLoadSeconds: 2.5,
		Tiers: []report.TierSearchTier{{Name: "fast", Levels: []string{"C=1", "C=2"}}, {Name: "any", Levels: []string{"C=1", "C=2", "C=4"}}}}
	if err := Write(&b, sum, stats, Options{Answer: "x"}); err != nil {
		t.Fatal(err)
	}
	if w := "</table></div>\n<p>" + sum.TierSearch.Sentence() + "</p>"; !strings.Contains(html.UnescapeString(b.String()), w) {
		t.Errorf("page lacks the search's cost %q", w)
	}
	b.Reset()
	if err := Write(&b, testSummary(), stats, Options{Answer: "x"}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "tiers") || !strings.Contains(b.String(), "<p class=\"answer\">x</p>\n<p class=\"meta\">") {
		t.Error("a run without tiers has a tier table, or its answer is not followed by the meta line as before")
	}
}
