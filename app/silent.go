package app

import (
	"fmt"
	"strings"

	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// silentLevels names the levels that delivered no token at all (no
// successful request; an interrupted level is not judged): "C=2, C=4", or
// "". A level that produced nothing is never a normal result: the run
// exits 1 naming it.
func silentLevels(stats []report.LevelStats) string {
	var cs []string
	for _, s := range stats {
		if s.RequestsOK == 0 && s.EndReason != sweep.Canceled {
			cs = append(cs, fmt.Sprintf("%s (%s)", report.LevelName(s), s.Errors))
		}
	}
	return strings.Join(cs, ", ")
}
