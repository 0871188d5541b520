package chart

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/report"
)

// sweepStats is a plausible sweep: the aggregate rises and saturates at
// C=32, the per-stream decode rate falls and then stays put while requests
// queue, so the e2e rate (which includes the wait) halves from 32 to 64;
// TTFT climbs once requests queue.
func sweepStats() []report.LevelStats {
	var stats []report.LevelStats
	for i, c := range []int{1, 2, 4, 8, 16, 32, 64} {
		decode := 320 / (1 + 0.1*float64(min(c, 32)))
		e2e := 0.9 * decode * 32 / float64(max(c, 32))
		stats = append(stats, report.LevelStats{
			Concurrency:        c,
			RequestsOK:         10 * c,
			DecodeTPSP50:       decode,
			DecodeTPSP10:       0.97 * decode,
			E2ETPSP50:          e2e,
			E2ETPSP10:          0.95 * e2e,
			AggregateOutputTPS: float64(min(c, 32)) * decode,
			TTFTP50:            time.Duration(5+i*i*20) * time.Millisecond,
			TTFTP95:            time.Duration(8+i*i*30) * time.Millisecond,
		})
	}
	return stats
}

func TestRunCharts(t *testing.T) {
	repeated := append(sweepStats(), sweepStats()[2:4]...)
	for i := len(sweepStats()); i < len(repeated); i++ {
		repeated[i].Repeat = 1
	}
	failed := []report.LevelStats{{Concurrency: 4, RequestsFailed: 3, DecodeTPSP50: math.NaN(), DecodeTPSP10: math.NaN(),
		E2ETPSP50: math.NaN(), E2ETPSP10: math.NaN(), AggregateOutputTPS: math.NaN(), TTFTP50: report.NoSample, TTFTP95: report.NoSample}}
	slo := &report.SLO{DecodeTPS: 40}
	tests := []struct {
		name   string
		stats  []report.LevelStats
		opts   Options
		charts []string
	}{
		{"sweep", sweepStats(), Options{}, runCharts},
		{"with SLO", sweepStats(), Options{SLO: slo}, runCharts},
		{"repeats", repeated, Options{}, runCharts},
		{"one level", sweepStats()[:1], Options{}, runCharts},
		{"no successful request", failed, Options{SLO: slo}, append(runCharts, ErrorsName)},
		{"no level", nil, Options{}, runCharts},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			charts, err := RunCharts(tt.stats, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, c := range charts {
				names = append(names, c.Name)
				checkSVG(t, c)
			}
			if !slices.Equal(names, tt.charts) {
				t.Errorf("charts %v, want %v", names, tt.charts)
			}
		})
	}
}

var runCharts = []string{AggregateName, DecodeName, TTFTName, TradeoffName, StallsName}

// TestDecodeChartShowsE2E: the per-stream chart draws e2e p50 beside
// decode p50 and p10, and e2e p10 when the SLO checks it.
func TestDecodeChartShowsE2E(t *testing.T) {
	want := []string{"decode p50", "decode p10 (slowest tenth)", "e2e p50 (incl. TTFT)"}
	for _, tt := range []struct {
		opts Options
		want []string
	}{
		{Options{}, want},
		{Options{SLO: &report.SLO{DecodeTPS: 40}}, want},
		{Options{SLO: &report.SLO{E2ETPS: 30}}, append(want, "e2e p10 (slowest tenth)")},
	} {
		c := chartNamed(t, sweepStats(), tt.opts, DecodeName)
		if !slices.Equal(c.Series, tt.want) {
			t.Errorf("SLO %v: series %q, want %q", tt.opts.SLO, c.Series, tt.want)
		}
	}
}

// TestSLOLines: every criterion is a line on the chart of its figure, at
// its target in the chart's unit, and no SLO draws no line.
func TestSLOLines(t *testing.T) {
	stats := sweepStats()
	stats[3].RequestsFailed = 2 // the error chart appears
	slo := &report.SLO{DecodeTPS: 40, E2ETPS: 30, TTFTP95: 1500 * time.Millisecond, ErrorRate: new(0.01)}
	want := map[string][]float64{DecodeName: {40, 30}, TTFTName: {1500}, ErrorsName: {1}}
	charts, err := RunCharts(stats, Options{SLO: slo})
	if err != nil {
		t.Fatal(err)
	}
	if len(charts) != 6 {
		t.Fatalf("%d charts, want 6 with the error chart", len(charts))
	}
	for _, c := range charts {
		var ys []float64
		for _, r := range c.SLOs {
			if !strings.HasPrefix(r.Label, "SLO: ") {
				t.Errorf("%s: SLO line labelled %q", c.Name, r.Label)
			}
			ys = append(ys, r.Y)
		}
		if !slices.Equal(ys, want[c.Name]) {
			t.Errorf("%s: SLO lines at %v, want %v", c.Name, ys, want[c.Name])
		}
	}
	charts, err = RunCharts(stats, Options{SLO: &report.SLO{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range charts {
		if len(c.SLOs) > 0 {
			t.Errorf("%s: SLO lines %v without an SLO", c.Name, c.SLOs)
		}
	}
}

// TestMarks: the recommended level and the knee (as report.Recommend finds
// them) and the client-limited levels are marked on every chart.
func TestMarks(t *testing.T) {
	stats := sweepStats()
	stats[1].ClientLimited = true
	slo := report.SLO{DecodeTPS: 100}
	rec := report.Recommend(stats, slo)
	if rec.Recommended.Concurrency == 0 || rec.Knee.Concurrency == 0 || rec.Recommended.Concurrency == rec.Knee.Concurrency {
		t.Fatalf("the test sweep should have a recommended level and a knee apart: %+v", rec)
	}
	want := []Mark{{rec.Recommended, MarkRecommended}, {rec.Knee, MarkKnee}, {stats[1].Key(), MarkClientLimited}}
	charts, err := RunCharts(stats, Options{SLO: &slo})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range charts {
		if !slices.Equal(c.Marks, want) {
			t.Errorf("%s: marks %v, want %v", c.Name, c.Marks, want)
		}
	}
	charts, err = RunCharts(stats[2:], Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range charts {
		if slices.ContainsFunc(c.Marks, func(m Mark) bool { return m.What != MarkKnee }) {
			t.Errorf("%s: marks %v without an SLO or a client-limited level; want the knee only", c.Name, c.Marks)
		}
	}
}

// TestTradeoffKeepsLevelsApart: past saturation the aggregate and the decode
// rate stay put while the e2e rate halves; the trade-off chart, on e2e,
// shows those levels as two points, with a label each.
func TestTradeoffKeepsLevelsApart(t *testing.T) {
	stats := sweepStats()
	n := len(stats)
	if stats[n-1].AggregateOutputTPS != stats[n-2].AggregateOutputTPS || stats[n-1].DecodeTPSP50 != stats[n-2].DecodeTPSP50 {
		t.Fatal("the test sweep should saturate at its last two levels")
	}
	_, onDecode, _ := tradeoff(report.GroupByKey(stats), decodeP50)
	if !slices.Contains(onDecode, "C=32,64") {
		t.Fatalf("on decode the saturated levels should share a point: %q", onDecode)
	}
	c := chartNamed(t, stats, Options{}, TradeoffName)
	if len(c.at) != n {
		t.Fatalf("%d points, want %d", len(c.at), n)
	}
	for i := 1; i < n; i++ {
		if near(c.at[i-1].XY, c.at[i].XY) {
			t.Errorf("C=%v and C=%v share a point: %v %v", c.at[i-1].X, c.at[i].X, c.at[i-1].XY, c.at[i].XY)
		}
	}
}

func chartNamed(t *testing.T, stats []report.LevelStats, opts Options, name string) Chart {
	t.Helper()
	charts, err := RunCharts(stats, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range charts {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no chart %s", name)
	return Chart{}
}

func TestCompareCharts(t *testing.T) {
	slow := sweepStats()[:5]
	for i := range slow {
		slow[i].DecodeTPSP50 *= 0.9
	}
	charts, err := CompareCharts([]Series{{"runs/a", sweepStats()}, {"runs/b", slow}})
	if err != nil {
		t.Fatal(err)
	}
	if len(charts) != 2 || charts[0].Name != CompareDecodeName || charts[1].Name != CompareTradeoffName {
		t.Fatalf("charts %v", charts)
	}
	for _, c := range charts {
		svg := checkSVG(t, c)
		for _, want := range []string{"A: runs/a", "B: runs/b"} {
			if !strings.Contains(svg, want) {
				t.Errorf("%s.svg lacks the legend entry %q", c.Name, want)
			}
		}
	}
}

// TestWriteFiles checks that the files are valid PNG and SVG of plausible
// size.
func TestWriteFiles(t *testing.T) {
	charts, err := RunCharts(sweepStats(), Options{SLO: &report.SLO{DecodeTPS: 40}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	paths, err := WriteFiles(dir, charts, Formats)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2*len(charts) {
		t.Fatalf("wrote %d files, want %d", len(paths), 2*len(charts))
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		switch filepath.Ext(p) {
		case ".png":
			cfg, err := png.DecodeConfig(bytes.NewReader(b))
			if err != nil {
				t.Errorf("%s: %v", p, err)
			} else if cfg.Width != 768 || cfg.Height != 480 {
				t.Errorf("%s is %d×%d, want 768×480", p, cfg.Width, cfg.Height)
			}
			if len(b) < 10_000 || len(b) > 300_000 {
				t.Errorf("%s: %d bytes, want 10–300 KB", p, len(b))
			}
		case ".svg":
			if len(b) < 2_000 || len(b) > 100_000 {
				t.Errorf("%s: %d bytes, want 2–100 KB", p, len(b))
			}
		default:
			t.Errorf("unexpected file %s", p)
		}
	}
}

// TestWriteFilesFormats: WriteFiles writes the formats asked for and no
// other, and ParseFormats reads every --charts value, refusing others in
// one line.
func TestWriteFilesFormats(t *testing.T) {
	for _, tc := range []struct {
		arg  string
		want []string
	}{
		{"png,svg", []string{"png", "svg"}},
		{"svg", []string{"svg"}},
		{"svg, png", []string{"svg", "png"}},
		{"none", []string{}},
	} {
		got, err := ParseFormats(tc.arg)
		if err != nil || !slices.Equal(got, tc.want) || got == nil {
			t.Errorf("ParseFormats(%q) = %q, %v, want %q", tc.arg, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "jpg", "png,", "svg,svg", "none,svg"} {
		_, err := ParseFormats(bad)
		if want := fmt.Sprintf("%q: want png or svg, comma-separated, or none", bad); err == nil || err.Error() != want {
			t.Errorf("ParseFormats(%q) = %v, want %s", bad, err, want)
		}
	}
	charts, err := RunCharts(sweepStats(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	paths, err := WriteFiles(dir, charts, []string{"svg"})
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(paths) != len(charts) || !slices.Equal(slices.Sorted(slices.Values(paths)), files) {
		t.Errorf("wrote %q, dir holds %q, want %d SVG files", paths, files, len(charts))
	}
	for _, p := range files {
		if filepath.Ext(p) != ".svg" {
			t.Errorf("unexpected file %s", p)
		}
	}
	if paths, err := WriteFiles(dir, charts, nil); err != nil || len(paths) != 0 {
		t.Errorf("no format: wrote %q, %v", paths, err)
	}
}

// checkSVG renders c as SVG, checks that it is well-formed XML with an svg
// root and some text, and returns it.
func checkSVG(t *testing.T, c Chart) string {
	t.Helper()
	b, err := c.Bytes("svg")
	if err != nil {
		t.Fatalf("%s: %v", c.Name, err)
	}
	dec := xml.NewDecoder(bytes.NewReader(b))
	root, texts := "", 0
	for {
		tok, err := dec.Token()
		if err != nil {
			if err != io.EOF {
				t.Fatalf("%s.svg is not well-formed XML: %v", c.Name, err)
			}
			break
		}
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Local
			}
			if se.Name.Local == "text" {
				texts++
			}
		}
	}
	if root != "svg" || texts < 5 {
		t.Errorf("%s.svg: root <%s>, %d texts; want <svg> with axis labels", c.Name, root, texts)
	}
	return string(b)
}

// TestNoVerdictLevelsAreMarked: a level that cannot bear a verdict (here
// most of its requests failed) is ringed on every chart, so its aggregate
// does not pass for healthy scaling.
func TestNoVerdictLevelsAreMarked(t *testing.T) {
	stats := sweepStats()
	stats[2].RequestsFailed = 4 * stats[2].RequestsOK // 80% failed
	if report.Untrusted(stats[2]) == "" {
		t.Fatal("the test level should be untrusted")
	}
	charts, err := RunCharts(stats, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range charts {
		want := Mark{Key: stats[2].Key(), What: MarkNoVerdict}
		if !slices.Contains(c.Marks, want) {
			t.Errorf("%s: marks %v lack %v", c.Name, c.Marks, want)
		}
		for _, m := range c.Marks {
			if m.What == MarkNoVerdict && m.Key != stats[2].Key() {
				t.Errorf("%s: level %s marked without cause", c.Name, m.Key)
			}
		}
	}
}
