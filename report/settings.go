package report

// Settings are a run's figure settings: what Summarize needs besides the
// level, given once (by the command line, or a saved run's config).
type Settings struct {
	// ReadingSpeed is the pace in tok/s of the reader the smoothness
	// figures are measured against; 0 means ReadingSpeed.
	ReadingSpeed float64
	// Percentiles are the extra percentiles (--percentiles) whose
	// columns (ExtraPercentileColumns) Summarize fills in LevelStats.Extra;
	// nil: none.
	Percentiles []float64
	// Classes are the run's traffic classes, by name (--class): each
	// level gets a row per class (LevelStats.Classes); nil: none.
	Classes []string
	// level, set for a class row, is its level's figures: the row's
	// aggregate figures are over the level's window (classes.go).
	level *LevelStats
}

// Settings are the figure settings c records (the zero Settings for a
// nil c: a run saved without its config).
func (c *RunConfig) Settings() Settings {
	if c == nil {
		return Settings{}
	}
	return Settings{ReadingSpeed: c.ReadingSpeed, Percentiles: c.Percentiles, Classes: c.classNames()}
}

// Reader is the reader pace of s: ReadingSpeed when s sets none.
func (s Settings) Reader() float64 { return paceOrDefault(s.ReadingSpeed) }

// Columns are the levels.csv columns s adds after the registry's.
// A run with classes ends its rows with the class column.
func (s Settings) Columns() []Column {
	cols := ExtraPercentileColumns(s.Percentiles)
	if len(s.Classes) > 0 {
		c := classColumn
		c.Out = InCSV
		cols = append(cols, c)
	}
	return cols
}
