package htmlreport

import (
	"bytes"
	"html"
	"math"
	"os"
	"path/filepath"
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
		Config: map[string]any{"levels": []int{1, 4, 16}, "max_tokens": 128},
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
			[]string{"m&lt;odel&gt;", "<td class=\" flag\">16.00</td>", "C=16 may have been client-limited: in-flight 12.00 of C=16", "&#34;max_tokens&#34;: 128", "Single stream: what one user sees", "finished -"},
			[]string{`class="slo"`, "m<odel>"}},
		{"SLO", testStats(), Options{SLODecodeTPS: 100, SLOVerdict: "serves 4 users"},
			[]string{`<div class="slo">SLO: serves 4 users</div>`}, nil},
		{"failed level", failed, Options{}, []string{"<td class=\" flag\">8</td>", "<td class=\"\">-</td>"}, nil},
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
			if n := strings.Count(page, `src="data:image/svg&#43;xml;base64,`); n != 4 {
				t.Errorf("%d embedded charts, want 4", n)
			}
			if !strings.Contains(html.UnescapeString(page), "Which requests count") {
				t.Error("page lacks the metric definitions")
			}
		})
	}
}

func TestWriteAll(t *testing.T) {
	dir := t.TempDir()
	if err := WriteAll(dir, testSummary(), testStats(), Options{SLODecodeTPS: 100}); err != nil {
		t.Fatal(err)
	}
	charts, _ := filepath.Glob(filepath.Join(dir, ChartsDir, "*"))
	if len(charts) != 8 {
		t.Errorf("%d chart files, want 8: %v", len(charts), charts)
	}
	if fi, err := os.Stat(filepath.Join(dir, File)); err != nil || fi.Size() < 20_000 {
		t.Errorf("report.html: %v", err)
	}
	if err := WriteAll(filepath.Join(dir, File, "x"), testSummary(), testStats(), Options{}); err == nil {
		t.Error("WriteAll into a file's subdirectory succeeded")
	}
}
