package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Console titles: each says what its figures include.
const (
	singleTitle    = "Single stream (what one user sees; successful requests; percentiles by nearest rank)"
	aggregateTitle = "Aggregate (what the server delivers; steady-state window, all C in flight)"
)

// WriteConsole writes the human summary of a sweep: a single-stream table
// and an aggregate table, one row per level, followed by footnotes for
// client-limited levels, levels without a steady state and token counting
// caveats. It is the only console output of figures.
func WriteConsole(w io.Writer, stats []LevelStats) error {
	single, agg := singleTable(stats), aggregateTable(stats)
	var b strings.Builder
	b.WriteString(singleTitle + "\n")
	if err := single.write(&b); err != nil {
		return err
	}
	b.WriteString("\n" + aggregateTitle + "\n")
	if err := agg.write(&b); err != nil {
		return err
	}
	if spread := spreadTable(stats); spread != nil {
		b.WriteString("\n" + spreadTitle + "\n")
		if err := spread.write(&b); err != nil {
			return err
		}
	}
	for _, note := range footnotes(stats) {
		b.WriteString(note + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// levelCols are the leading columns of both tables: C, and the repeat
// index when any level is a repeat.
func levelCols(stats []LevelStats) ([]col, func(LevelStats) []string) {
	repeats := false
	for _, s := range stats {
		repeats = repeats || s.Repeat != 0
	}
	if !repeats {
		return []col{{head: "C"}}, func(s LevelStats) []string {
			return []string{strconv.Itoa(s.Concurrency)}
		}
	}
	return []col{{head: "C"}, {head: "rep"}}, func(s LevelStats) []string {
		return []string{strconv.Itoa(s.Concurrency), strconv.Itoa(s.Repeat)}
	}
}

func singleTable(stats []LevelStats) *table {
	lead, leadCells := levelCols(stats)
	t := &table{
		groups: []group{
			{"", len(lead) + 2},
			{"TTFT ms (queue+prefill)", 3},
			{"decode tok/s (after first token)", 3},
			{"e2e tok/s (incl. TTFT)", 2},
			{"ITL ms (per token)", 3},
		},
		cols: append(lead, []col{
			{head: "ok"}, {head: "fail"},
			{head: "p50"}, {head: "p95"}, {head: "p99"},
			{head: "p50"}, {head: "p10"}, {head: "mean"},
			{head: "p50"}, {head: "mean"},
			{head: "p50"}, {head: "p99"}, {head: "max"},
		}...),
	}
	for _, s := range stats {
		t.rows = append(t.rows, append(leadCells(s),
			strconv.Itoa(s.RequestsOK), strconv.Itoa(s.RequestsFailed),
			msText(s.TTFTP50), msText(s.TTFTP95), msText(s.TTFTP99),
			num(s.DecodeTPSP50, 1), num(s.DecodeTPSP10, 1), num(s.DecodeTPSMean, 1),
			num(s.E2ETPSP50, 1), num(s.E2ETPSMean, 1),
			msText(s.ITLP50), msText(s.ITLP99), msText(s.ITLMax),
		))
	}
	return t
}

func aggregateTable(stats []LevelStats) *table {
	lead, leadCells := levelCols(stats)
	t := &table{cols: append(lead, []col{
		{head: ""}, // markers: ! may have been client-limited, * no steady state
		{head: "output tok/s"}, {head: "total tok/s (incl. prompt)"}, {head: "req/s"},
		{head: "window s"}, {head: "in-flight"},
		{head: "errors", left: true}, {head: "end reason", left: true},
	}...)}
	for _, s := range stats {
		errs := s.Errors.String()
		if errs == "" {
			errs = "-"
		}
		t.rows = append(t.rows, append(leadCells(s),
			markers(s),
			num(s.AggregateOutputTPS, 1), num(s.AggregateTotalTPS, 1), num(s.RequestsPerS, 2),
			num(s.windowSeconds(), 1), num(s.InflightMean, 2),
			errs, string(s.EndReason),
		))
	}
	if slices.ContainsFunc(stats, func(s LevelStats) bool { return s.SLO != nil }) {
		t.cols = append(t.cols, col{head: "SLO", left: true})
		for i, s := range stats {
			t.rows[i] = append(t.rows[i], sloText(s.SLO))
		}
	}
	return t
}

// sloText is a level's SLO verdict in the aggregate table.
func sloText(r *SLOResult) string {
	switch {
	case r == nil:
		return "-"
	case r.Pass:
		return "pass"
	default:
		return "FAIL: " + strings.Join(r.Failed, "; ")
	}
}

func markers(s LevelStats) string {
	m := ""
	if s.ClientLimited {
		m += "!"
	}
	if s.WindowFallback {
		m += "*"
	}
	return m
}

// footnotes explains the markers and warns about token counting.
func footnotes(stats []LevelStats) []string {
	var notes []string
	for _, s := range stats {
		if s.ClientLimited {
			notes = append(notes, "! "+ClientLimitedNote(s))
		}
		if s.WindowFallback {
			notes = append(notes, fmt.Sprintf("* %s: no steady state (the workers were never all in flight together): aggregate figures span the whole level",
				levelName(s)))
		}
	}
	for _, s := range stats {
		if s.TokenCountMismatch > 0 {
			notes = append(notes, fmt.Sprintf("note: %s: %d of %d successful requests' usage differs from their chunk count by more than %.0f%% (multi-token chunks or lost chunks); per-token figures spread usage evenly over chunks",
				levelName(s), s.TokenCountMismatch, s.RequestsOK, 100*MismatchTolerance))
		}
		if s.TokenSource == TokensMixed {
			notes = append(notes, fmt.Sprintf("note: %s: only some responses carried usage; the others are counted one token per chunk",
				levelName(s)))
		}
	}
	return notes
}

func levelName(s LevelStats) string {
	if s.Repeat != 0 {
		return fmt.Sprintf("C=%d rep %d", s.Concurrency, s.Repeat)
	}
	return fmt.Sprintf("C=%d", s.Concurrency)
}

// num formats v with fixed decimals for the console, NaN as "-".
func num(v float64, decimals int) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

func msText(d time.Duration) string { return num(ms(d), 1) }
