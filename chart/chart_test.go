package chart

import (
	"bytes"
	"encoding/xml"
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

// sweepStats is a plausible sweep: the aggregate rises and saturates, the
// per-stream rate falls, TTFT climbs once requests queue.
func sweepStats() []report.LevelStats {
	var stats []report.LevelStats
	for i, c := range []int{1, 2, 4, 8, 16, 32, 64} {
		decode := 320 / (1 + 0.1*float64(c))
		stats = append(stats, report.LevelStats{
			Concurrency:        c,
			DecodeTPSP50:       decode,
			DecodeTPSP10:       0.97 * decode,
			AggregateOutputTPS: math.Min(float64(c)*decode, 3000),
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
	failed := []report.LevelStats{{Concurrency: 4, DecodeTPSP50: math.NaN(), DecodeTPSP10: math.NaN(),
		AggregateOutputTPS: math.NaN(), TTFTP50: report.NoSample, TTFTP95: report.NoSample}}
	tests := []struct {
		name  string
		stats []report.LevelStats
		opts  Options
		want  []string // texts the SVGs must hold, in chart order
	}{
		{"sweep", sweepStats(), Options{}, []string{"Aggregate output tok/s", "p10 (slowest tenth)", "p95", "C=64"}},
		{"with SLO", sweepStats(), Options{SLODecodeTPS: 40}, []string{"", "SLO target 40 tok/s", "", ""}},
		{"repeats", repeated, Options{}, []string{"", "", "", "C=8"}},
		{"one level", sweepStats()[:1], Options{}, []string{"", "", "", "C=1"}},
		{"no successful request", failed, Options{SLODecodeTPS: 40}, []string{"", "", "", ""}},
		{"no level", nil, Options{}, []string{"", "", "", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			charts, err := RunCharts(tt.stats, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for i, c := range charts {
				names = append(names, c.Name)
				svg := checkSVG(t, c)
				if i < len(tt.want) && !strings.Contains(svg, tt.want[i]) { // stalls_test.go checks the stall chart
					t.Errorf("%s.svg lacks %q", c.Name, tt.want[i])
				}
			}
			if want := []string{AggregateName, DecodeName, TTFTName, TradeoffName, StallsName}; !slices.Equal(names, want) {
				t.Errorf("charts %v, want %v", names, want)
			}
		})
	}
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
	charts, err := RunCharts(sweepStats(), Options{SLODecodeTPS: 40})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	paths, err := WriteFiles(dir, charts)
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
