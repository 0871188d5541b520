package report

import (
	"time"

	"github.com/toksweep/toksweep/internal/testkit/recordtest"
)

const msec = time.Millisecond

// The record and level builders (internal/recordtest), shared with
// rundir's tests.
var (
	stream       = recordtest.Stream
	failed       = recordtest.Failed
	with         = recordtest.With
	level        = recordtest.Level
	closedLoop   = recordtest.ClosedLoop
	closedLoopOf = recordtest.ClosedLoopOf
	chunked      = recordtest.Chunked
	openLevel    = recordtest.OpenLevel
	constant     = recordtest.Constant
	goldenLevels = recordtest.GoldenLevels
)

// figures is s as its levels.csv row, keyed by column name.
func figures(s LevelStats) map[string]string {
	m := make(map[string]string)
	for i, cell := range levelRow(s) {
		m[LevelsCSVHeader[i]] = cell
	}
	return m
}
