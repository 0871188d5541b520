package htmlreport

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toksweep/toksweep/report"
)

// tableView is one HTML table: numbers right-aligned, text left.
type tableView struct {
	Caption string
	Heads   []head
	Rows    [][]cell
}

type head struct {
	Text, Title string // Title is the levels.csv column, shown on hover
	Left        bool   // a text column (left-aligned)
}

type cell struct {
	Text string
	Left bool // left-aligned text
	Flag bool // highlighted: client-limited, no steady state, errors
}

// column is one figure of a level, as the page shows it.
type column struct {
	head, csv string
	text      bool
	value     func(report.LevelStats) (string, bool) // text, flagged
}

func numCol(head, csv string, decimals int, f func(report.LevelStats) float64) column {
	return column{head: head, csv: csv, value: func(s report.LevelStats) (string, bool) {
		return num(f(s), decimals), false
	}}
}

func msCol(head, csv string, f func(report.LevelStats) time.Duration) column {
	return numCol(head, csv, 1, func(s report.LevelStats) float64 { return ms(f(s)) })
}

func intCol(head, csv string, f func(report.LevelStats) int) column {
	return column{head: head, csv: csv, value: func(s report.LevelStats) (string, bool) {
		return strconv.Itoa(f(s)), false
	}}
}

// leadCols are C, and the repetition when any level is a repeat.
func leadCols(stats []report.LevelStats) []column {
	cols := []column{intCol("C", "concurrency", func(s report.LevelStats) int { return s.Concurrency })}
	for _, s := range stats {
		if s.Repeat != 0 {
			return append(cols, intCol("rep", "repeat", func(s report.LevelStats) int { return s.Repeat }))
		}
	}
	return cols
}

func singleTable(stats []report.LevelStats) tableView {
	cols := append(leadCols(stats),
		intCol("ok", "requests_ok", func(s report.LevelStats) int { return s.RequestsOK }),
		column{head: "failed", csv: "requests_failed", value: func(s report.LevelStats) (string, bool) {
			return strconv.Itoa(s.RequestsFailed), s.RequestsFailed > 0
		}},
		msCol("TTFT p50 ms", "ttft_p50_ms", func(s report.LevelStats) time.Duration { return s.TTFTP50 }),
		msCol("TTFT p95 ms", "ttft_p95_ms", func(s report.LevelStats) time.Duration { return s.TTFTP95 }),
		msCol("TTFT p99 ms", "ttft_p99_ms", func(s report.LevelStats) time.Duration { return s.TTFTP99 }),
		numCol("decode p50 tok/s", "decode_tps_p50", 1, func(s report.LevelStats) float64 { return s.DecodeTPSP50 }),
		numCol("decode p10 tok/s", "decode_tps_p10", 1, func(s report.LevelStats) float64 { return s.DecodeTPSP10 }),
		numCol("decode mean tok/s", "decode_tps_mean", 1, func(s report.LevelStats) float64 { return s.DecodeTPSMean }),
		numCol("e2e p50 tok/s", "e2e_tps_p50", 1, func(s report.LevelStats) float64 { return s.E2ETPSP50 }),
		msCol("ITL p50 ms", "itl_p50_ms", func(s report.LevelStats) time.Duration { return s.ITLP50 }),
		msCol("ITL p99 ms", "itl_p99_ms", func(s report.LevelStats) time.Duration { return s.ITLP99 }),
	)
	return build("Single stream: what one user sees (successful requests; percentiles by nearest rank)", cols, stats)
}

func aggregateTable(stats []report.LevelStats) tableView {
	cols := append(leadCols(stats),
		numCol("output tok/s", "aggregate_output_tps", 1, func(s report.LevelStats) float64 { return s.AggregateOutputTPS }),
		numCol("total tok/s (incl. prompt)", "aggregate_total_tps", 1, func(s report.LevelStats) float64 { return s.AggregateTotalTPS }),
		numCol("req/s", "requests_per_s", 2, func(s report.LevelStats) float64 { return s.RequestsPerS }),
		column{head: "window s", csv: "window_s", value: func(s report.LevelStats) (string, bool) {
			w := math.NaN()
			if s.RequestsOK+s.RequestsFailed > 0 {
				w = s.Window().Seconds()
			}
			return num(w, 1), s.WindowFallback
		}},
		column{head: "in-flight", csv: "inflight_mean", value: func(s report.LevelStats) (string, bool) {
			return num(s.InflightMean, 2), s.ClientLimited
		}},
		column{head: "errors", csv: "err_<class>", text: true, value: func(s report.LevelStats) (string, bool) {
			e := s.Errors.String()
			return orDash(e), e != ""
		}},
		column{head: "end reason", csv: "end_reason", text: true, value: func(s report.LevelStats) (string, bool) {
			return orDash(string(s.EndReason)), false
		}},
	)
	if slices.ContainsFunc(stats, func(s report.LevelStats) bool { return s.SLO != nil }) {
		cols = append(cols, column{head: "SLO", csv: "slo_pass, slo_failed", text: true, value: sloCell})
	}
	return build("Aggregate: what the server delivers (steady-state window, all C in flight)", cols, stats)
}

// sloCell is a level's SLO verdict, flagged when it fails.
func sloCell(s report.LevelStats) (string, bool) {
	switch {
	case s.SLO == nil:
		return "-", false
	case s.SLO.Pass:
		return "pass", false
	default:
		return "FAIL: " + strings.Join(s.SLO.Failed, "; "), true
	}
}

func build(caption string, cols []column, stats []report.LevelStats) tableView {
	t := tableView{Caption: caption}
	for _, c := range cols {
		t.Heads = append(t.Heads, head{Text: c.head, Title: c.csv, Left: c.text})
	}
	for _, s := range stats {
		row := make([]cell, len(cols))
		for i, c := range cols {
			text, flag := c.value(s)
			row[i] = cell{Text: text, Left: c.text, Flag: flag}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// notes explains flagged levels, as the console footnotes do.
func notes(stats []report.LevelStats) []string {
	var out []string
	for _, s := range stats {
		name := fmt.Sprintf("C=%d", s.Concurrency)
		if s.Repeat != 0 {
			name += fmt.Sprintf(" rep %d", s.Repeat)
		}
		if s.ClientLimited {
			out = append(out, report.ClientLimitedNote(s)+".")
		}
		if s.WindowFallback {
			out = append(out, name+": no steady state (the workers were never all in flight together): aggregate figures span the whole level.")
		}
		if s.TokenCountMismatch > 0 {
			out = append(out, fmt.Sprintf("%s: %d of %d successful requests' usage differs from their chunk count by more than %.0f%%.",
				name, s.TokenCountMismatch, s.RequestsOK, 100*report.MismatchTolerance))
		}
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func num(v float64, decimals int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

func ms(d time.Duration) float64 {
	if d == report.NoSample {
		return math.NaN()
	}
	return float64(d) / float64(time.Millisecond)
}
