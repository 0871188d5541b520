package report

import (
	"fmt"

	"github.com/toksweep/toksweep/sweep"
)

// LevelTable is one table of per-level figures as people see it: on the
// console (WriteConsole) and in report.html. LevelTables builds them from
// Columns, so both show the same columns with the same headings.
type LevelTable struct {
	Table  Table
	Title  string
	Groups []TableGroup // titles over the heads; spans add up to len(Cols); nil when none
	Cols   []TableCol
	Rows   [][]TableCell
}

// TableGroup is a title spanning several heads.
type TableGroup struct {
	Title string
	Span  int
}

// TableCol is one column's heading.
type TableCol struct {
	Head string
	Name string // its levels.csv column, "" for a table-only column
	Left bool   // text, left-aligned
}

// TableCell is one level's cell.
type TableCell struct {
	Text string
	Flag bool // highlighted in report.html: failures, no steady state, client-limited, a failed SLO
}

// The tables' titles: each says what its figures include.
var tableTitles = map[Table]string{
	SingleTable:    "Single stream (what one user sees; successful requests; percentiles by nearest rank)",
	AggregateTable: "Aggregate (what the server delivers; steady-state window, %s)",                                            // the mode's words: Words.Aggregate
	SmoothTable:    "Smoothness (what a reader sees after the first token; successful requests; stall: gap > 1 s; reader: %s)", // the reader: ReaderText
	ServerTable:    "Server (its own metrics over each level, vLLM names; empty when not scraped)",
	GPUTable:       "GPUs (dcgm-exporter's telemetry over each level, summed over the GPUs; empty when incomplete)",
}

// LevelTables are the single-stream, smoothness, aggregate and (when the server was
// scraped) server tables of stats, one row per level. The console leaves
// the server table out: the sweep prints those figures as each level ends. Each leads with C,
// and with the repeat when any level is a repeat.
func LevelTables(stats []LevelStats) []LevelTable {
	var out []LevelTable
	for _, t := range []Table{SingleTable, SmoothTable, AggregateTable, ServerTable, GPUTable} {
		cols := append(tableColumns(stats, LeadTable), tableColumns(stats, t)...)
		if len(cols) == len(tableColumns(stats, LeadTable)) {
			continue // every column hidden: nothing to show
		}
		title := tableTitles[t]
		switch t {
		case SmoothTable:
			title = fmt.Sprintf(title, ReaderText(stats))
		case AggregateTable:
			title = fmt.Sprintf(title, runWords(stats).Aggregate)
		}
		rows := stats
		if t != ServerTable && t != GPUTable { // the server's and the GPUs' figures are the level's
			rows = withClasses(stats)
			cols = append(tableColumns(rows, LeadTable), tableColumns(rows, t)...)
		}
		lt := buildTable(title, cols, rows)
		lt.Table = t
		out = append(out, lt)
	}
	return out
}

// tableColumns are the columns of table t shown for stats: the numbers,
// then the text columns, each in registry order.
func tableColumns(stats []LevelStats, t Table) []Column {
	var nums, texts []Column
	for _, c := range Columns {
		switch {
		case c.Table != t || c.Show != nil && !c.Show(stats):
		case c.Left:
			texts = append(texts, c)
		default:
			nums = append(nums, c)
		}
	}
	return append(nums, texts...)
}

// anyRepeat shows the repeat column when a level is a repeat.
func anyRepeat(stats []LevelStats) bool {
	for _, s := range stats {
		if s.Repeat != 0 {
			return true
		}
	}
	return false
}

func buildTable(title string, cols []Column, stats []LevelStats) LevelTable {
	t := LevelTable{Title: title}
	grouped := false
	for i, c := range cols {
		head := c.Head
		if c.Heads != nil {
			head = c.Heads(stats)
		}
		t.Cols = append(t.Cols, TableCol{Head: head, Name: c.Name, Left: c.Left})
		grouped = grouped || c.Group != ""
		if n := len(t.Groups); i > 0 && t.Groups[n-1].Title == c.Group {
			t.Groups[n-1].Span++
		} else {
			t.Groups = append(t.Groups, TableGroup{Title: c.Group, Span: 1})
		}
	}
	if !grouped {
		t.Groups = nil
	}
	for i := range stats {
		row := make([]TableCell, len(cols))
		for j, c := range cols {
			row[j] = TableCell{Text: c.People(&stats[i]), Flag: c.Flag != nil && c.Flag(&stats[i])}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// runWords are the words of the run's mode: its first level's (a run is
// one mode), the closed loop's without levels.
func runWords(stats []LevelStats) sweep.Words {
	if len(stats) == 0 {
		return sweep.LevelKey{}.Words()
	}
	return stats[0].Key().Words()
}
