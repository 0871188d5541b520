package htmlreport

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/toksweep/toksweep/internal/atomicfile"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/report/chart"

	_ "embed"
)

// The files WriteAll writes in a run directory.
const (
	File      = "report.html" // the page
	ChartsDir = "charts"      // NAME.png and NAME.svg for each chart.RunCharts chart (Options.Charts)
)

// Options are what the sweep knows beyond the figures.
type Options struct {
	// SLO, when not nil, is the run's SLO: its criteria are drawn on the
	// charts (chart.Options).
	SLO *report.SLO
	// Answer, when not empty, opens the page: the sweep's closing
	// paragraph (report.Recommendation.Sentence), with or without an SLO.
	Answer string
	// Charts is --charts, the chart files WriteAll writes into charts/
	// (chart.ParseFormats): "" is chart.Formats, PNG and SVG. report.html
	// embeds its charts as SVG whatever it says.
	Charts string
}

// WriteAll writes the run's charts into DIR/charts (created if needed), in
// the formats opts.Charts names, and DIR/report.html, each file replaced
// atomically (atomicfile.Write): a failed write leaves no truncated file. It is what the sweep calls when it ends, and what
// 'toksweep report' calls on a saved run.
func WriteAll(dir string, sum report.Summary, stats []report.LevelStats, opts Options) error {
	formats := chart.Formats
	if opts.Charts != "" {
		var err error
		if formats, err = chart.ParseFormats(opts.Charts); err != nil {
			return fmt.Errorf("charts %w", err)
		}
	}
	charts, err := chart.RunCharts(stats, chart.Options{SLO: opts.SLO})
	if err != nil {
		return err
	}
	// Each chart's SVG is rendered once, for its file and for the page.
	svgs, err := renderSVG(charts)
	if err != nil {
		return err
	}
	if len(formats) > 0 {
		cdir := filepath.Join(dir, ChartsDir)
		if err := os.MkdirAll(cdir, 0o755); err != nil {
			return err
		}
		others := slices.DeleteFunc(slices.Clone(formats), func(f string) bool { return f == "svg" })
		if _, err := chart.WriteFiles(cdir, charts, others); err != nil {
			return err
		}
		if len(others) < len(formats) { // SVG files asked for: the page's
			for i, c := range charts {
				if _, err := chart.WriteFile(cdir, c, "svg", svgs[i]); err != nil {
					return err
				}
			}
		}
	}
	var b bytes.Buffer
	if err := write(&b, sum, stats, charts, svgs, opts); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, File), b.Bytes())
}

// writeFile replaces path by b atomically, its error naming path.
func writeFile(path string, b []byte) error {
	if err := atomicfile.WriteBytes(path, b); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// renderSVG is each chart rendered as SVG.
func renderSVG(charts []chart.Chart) ([][]byte, error) {
	svgs := make([][]byte, len(charts))
	for i, c := range charts {
		var err error
		if svgs[i], err = c.Bytes("svg"); err != nil {
			return nil, err
		}
	}
	return svgs, nil
}

//go:embed page.html.tmpl
var pageText string

var page = template.Must(template.New("page").Funcs(template.FuncMap{"pct": func(v float64) float64 { return 100 * v }}).Parse(pageText))

// view is what the page template reads.
type view struct {
	Title    string
	Summary  report.Summary
	Started  string
	Finished string
	Answer   string
	Tiers    *tierView // the tier table (summary.json tiers); nil: none
	// Predictions are the prediction table's rows (report.PredictionRows).
	Predictions []report.PredictionRow
	Charts      []chartView
	Tables      []tableView
	Notes       []string
	Config      string
	Terms       []term // the definitions of the figures shown
	Docs        string // MetricsURL
}

// tierView is the tier table (report.TierTable) as the page draws it.
type tierView struct {
	Title string
	Heads []tierCell
	Rows  [][]tierCell
	Cost  string // an auto search's cost (TierSearchJSON.Sentence); "": given levels
}

type tierCell struct {
	Text string
	Left bool
}

// newTierView is the tier table of tiers; nil without any.
func newTierView(tiers []report.TierJSON) *tierView {
	if len(tiers) == 0 {
		return nil
	}
	heads, left, rows := report.TierTable(tiers)
	v := &tierView{Title: report.TierTableTitle}
	for i, h := range heads {
		v.Heads = append(v.Heads, tierCell{h, left[i]})
	}
	for _, r := range rows {
		var cells []tierCell
		for i, c := range r {
			cells = append(cells, tierCell{c, left[i]})
		}
		v.Rows = append(v.Rows, cells)
	}
	return v
}

type chartView struct {
	Title string
	Note  string
	Src   template.URL // data:image/svg+xml;base64,…
}

// write writes report.html to w, each chart drawn by its SVG (svgs[i] is
// charts[i]'s).
func write(w io.Writer, sum report.Summary, stats []report.LevelStats, charts []chart.Chart, svgs [][]byte, opts Options) error {
	v := view{
		Title:    fmt.Sprintf("toksweep: %s at %s", sum.Model, sum.URL),
		Summary:  sum,
		Started:  timeText(sum.Started),
		Finished: timeText(sum.Finished),
		Answer:   opts.Answer,
		Tables:   tables(stats),
		Notes:    report.Footnotes(stats),
		Docs:     MetricsURL,
	}
	v.Terms, _ = definitions(v.Tables)
	v.Tiers = newTierView(sum.Tiers)
	v.Predictions = report.PredictionRows(sum)
	if v.Tiers != nil && sum.TierSearch != nil {
		v.Tiers.Cost = sum.TierSearch.Sentence()
	}
	for i, c := range charts {
		src := "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(svgs[i])
		v.Charts = append(v.Charts, chartView{Title: c.Title, Note: c.Note, Src: template.URL(src)})
	}
	if sum.Config != nil {
		b, err := json.MarshalIndent(sum.Config, "", "  ")
		if err != nil {
			return fmt.Errorf("report.html: config: %w", err)
		}
		v.Config = string(b)
	}
	var b bytes.Buffer
	if err := page.Execute(&b, v); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

func timeText(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05 MST")
}
