package app

import (
	"strings"
	"testing"

	"github.com/toksweep/toksweep/client/promscrape"
	"github.com/toksweep/toksweep/report"
)

// TestLevelNotesPreemptions: the server line gives the level's preemptions
// when the server exports the counter, and says nothing of them otherwise.
func TestLevelNotesPreemptions(t *testing.T) {
	t.Parallel()
	var o options
	with := report.LevelStats{Server: report.ServerStats{Scraped: true,
		Raw: &promscrape.LevelMetrics{Preemptions: promscrape.Increase{Delta: 13, OK: true}}}}
	if got := o.levelNotes(with); !strings.Contains(got, ", preemptions 13;") {
		t.Errorf("with the counter: %q", got)
	}
	without := report.LevelStats{Server: report.ServerStats{Scraped: true, Raw: &promscrape.LevelMetrics{}}}
	if got := o.levelNotes(without); strings.Contains(got, "preemptions") || !strings.Contains(got, "server: running") {
		t.Errorf("without the counter: %q", got)
	}
}
