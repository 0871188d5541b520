package report

import (
	"io"
	"strings"
	"unicode/utf8"
)

// table is a minimal text aligner: right-aligned columns (left-aligned when
// marked), an optional group row whose titles span several columns, and
// two spaces between columns. text/tabwriter cannot span a title over
// several cells, hence this.
type table struct {
	groups []group // titles above the heads; spans must add up to len(cols)
	cols   []col
	rows   [][]string
}

type group struct {
	title string
	span  int
}

type col struct {
	head string
	left bool // left-align (text); numbers are right-aligned
}

const colSep = "  "

// widths sizes each column to its widest cell, then widens the columns of a
// group evenly until its title fits.
func (t *table) widths() []int {
	w := make([]int, len(t.cols))
	for i, c := range t.cols {
		w[i] = utf8.RuneCountInString(c.head)
	}
	for _, row := range t.rows {
		for i, cell := range row {
			w[i] = max(w[i], utf8.RuneCountInString(cell))
		}
	}
	first := 0
	for _, g := range t.groups {
		span := w[first : first+g.span]
		short := utf8.RuneCountInString(g.title) - spanWidth(span)
		for i := 0; short > 0; i = (i + 1) % len(span) {
			span[len(span)-1-i]++
			short--
		}
		first += g.span
	}
	return w
}

func spanWidth(w []int) int {
	n := len(colSep) * (len(w) - 1)
	for _, x := range w {
		n += x
	}
	return n
}

// write renders the table; lines carry no trailing spaces.
func (t *table) write(w io.Writer) error {
	width := t.widths()
	var b strings.Builder
	if len(t.groups) > 0 {
		cells, first := make([]string, 0, len(t.groups)), 0
		for _, g := range t.groups {
			cells = append(cells, pad(g.title, spanWidth(width[first:first+g.span]), false))
			first += g.span
		}
		writeLine(&b, cells)
	}
	heads := make([]string, len(t.cols))
	for i, c := range t.cols {
		heads[i] = pad(c.head, width[i], c.left)
	}
	writeLine(&b, heads)
	for _, row := range t.rows {
		cells := make([]string, len(row))
		for i, cell := range row {
			cells[i] = pad(cell, width[i], t.cols[i].left)
		}
		writeLine(&b, cells)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeLine(b *strings.Builder, cells []string) {
	b.WriteString(strings.TrimRight(strings.Join(cells, colSep), " "))
	b.WriteByte('\n')
}

func pad(s string, width int, left bool) string {
	fill := strings.Repeat(" ", max(0, width-utf8.RuneCountInString(s)))
	if left {
		return s + fill
	}
	return fill + s
}
