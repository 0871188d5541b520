package mode

import (
	"io"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// Start is what a mode's start may use to build its sweep.Load.
type Start struct {
	Line   *Line
	Client *client.Client
	Stderr io.Writer
	Stats  *[]report.LevelStats // the finished levels, for a search's judge
}

// Run is what a mode adds to one sweep's output; nil fields add nothing.
type Run struct {
	// Search is the mode's adaptive search, whose sentence follows the
	// answer.
	Search interface{ Sentence() string }
	// Note is a line under a level's status line.
	Note func(l sweep.Level, s report.LevelStats) string
	// Preface is written on stdout before the tables; Closing is a line
	// after the answer (and the search's sentence).
	Preface func(w io.Writer) error
	Closing func(stats []report.LevelStats) string
}
