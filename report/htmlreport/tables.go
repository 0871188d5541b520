package htmlreport

import "github.com/toksweep/toksweep/report"

// tableView is one HTML table: report.LevelTable, the same columns,
// headings and cells as the console, with the levels.csv column of each
// head shown on hover.
type tableView struct {
	report.LevelTable
	Grouped bool // draw the group row
}

// tables are the page's tables of per-level figures.
func tables(stats []report.LevelStats) []tableView {
	var out []tableView
	for _, t := range report.LevelTables(stats) {
		out = append(out, tableView{LevelTable: t, Grouped: t.Groups != nil})
	}
	return out
}
