package report

import (
	"encoding/csv"
	"io"
	"math"
	"slices"
)

// LevelsCSVHeader is the header of levels.csv, in column order: the names
// of the columns of Columns written to the CSV.
var LevelsCSVHeader = levelsCSVHeader()

var csvColumns = ColumnsIn(InCSV)

func levelsCSVHeader() []string {
	h := make([]string, len(csvColumns))
	for i, c := range csvColumns {
		h[i] = c.Name
	}
	return h
}

// LevelsCSV writes levels.csv one row at a time, so each level can be
// appended as it ends.
type LevelsCSV struct {
	w     *csv.Writer
	extra []Column // appended after the registry's (ExtraPercentileColumns)
}

// NewLevelsCSV writes the header, the registry's columns and then extra
// (nil: none), to w and returns a writer for the rows.
func NewLevelsCSV(w io.Writer, extra []Column) (*LevelsCSV, error) {
	c := &LevelsCSV{w: csv.NewWriter(w), extra: extra}
	header := LevelsCSVHeader
	for _, e := range extra {
		header = append(slices.Clip(header), e.Name)
	}
	if err := c.write(header); err != nil {
		return nil, err
	}
	return c, nil
}

// Write writes the row of one level, then its class rows (a run with
// classes), and flushes them.
func (c *LevelsCSV) Write(s LevelStats) error {
	for _, r := range withClasses([]LevelStats{s}) {
		row := levelRow(r)
		for _, e := range c.extra {
			row = append(row, e.CSV(&r))
		}
		if err := c.w.Write(row); err != nil {
			return err
		}
	}
	c.w.Flush()
	return c.w.Error()
}

func (c *LevelsCSV) write(row []string) error {
	if err := c.w.Write(row); err != nil {
		return err
	}
	c.w.Flush()
	return c.w.Error()
}

// levelRow formats s in LevelsCSVHeader order.
func levelRow(s LevelStats) []string {
	row := make([]string, len(csvColumns))
	for i, c := range csvColumns {
		row[i] = c.CSV(&s)
	}
	return row
}

// windowSeconds is the window length in seconds, NaN for a level without
// measured requests (no window at all).
func (s *LevelStats) windowSeconds() float64 {
	if s.RequestsOK+s.RequestsFailed == 0 || s.Window() <= 0 {
		return math.NaN() // no window: no request finished
	}
	return s.Window().Seconds()
}
