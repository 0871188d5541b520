package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// The column lists of the docs are generated from Columns, and
// TestColumnDocs fails when a list in docs/metrics.md, docs/guide.md or this
// package's doc comment differs (go test ./report -update rewrites them).

// docColumns are the levels.csv columns as the docs list them: a family
// (err_<class>) is one entry.
func docColumns() []Column {
	var out []Column
	for _, c := range ColumnsIn(InCSV) {
		if c.family != "" {
			if n := len(out); n > 0 && out[n-1].family == c.family {
				continue
			}
			c.Name = c.family
		}
		out = append(out, c)
	}
	return out
}

// metricsTable is the column table of docs/metrics.md (## levels.csv).
func metricsTable() string {
	var b strings.Builder
	b.WriteString("| column | unit | definition |\n|---|---|---|\n")
	csv := ColumnsIn(InCSV)
	for _, c := range docColumns() {
		if c.family != "" { // "err_http_4xx … err_canceled": markdown would take <class> for a tag
			first := slices.IndexFunc(csv, func(x Column) bool { return x.family == c.family })
			last := slices.IndexFunc(csv[first:], func(x Column) bool { return x.family != c.family })
			c.Name = csv[first].Name + " … " + csv[first+last-1].Name
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", c.Name, c.Unit, c.Def)
	}
	return strings.ReplaceAll(b.String(), "|  |", "| |")
}

// readmeColumns is the column list of docs/guide.md (## levels.csv): the
// names, in order, wrapped.
func readmeColumns() string {
	var b strings.Builder
	line := 0
	cols := docColumns()
	for i, c := range cols {
		word := "`" + c.Name + "`"
		if i < len(cols)-1 {
			word += ","
		} else {
			word += "."
		}
		if line > 0 && line+1+len(word) > 76 {
			b.WriteByte('\n')
			line = 0
		} else if line > 0 {
			b.WriteByte(' ')
			line++
		}
		b.WriteString(word)
		line += len(word)
	}
	return b.String()
}

// goDocColumns is the column list of the package doc comment.
func goDocColumns() string {
	plain := strings.NewReplacer("`", "", `\|`, "|")
	var b strings.Builder
	for _, c := range docColumns() {
		line := fmt.Sprintf("//\t%-23s %-9s %s", c.Name, cmp.Or(c.Unit, "-"), plain.Replace(c.Def))
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	return b.String()
}
