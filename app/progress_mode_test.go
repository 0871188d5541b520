package app

import (
	"bytes"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/sweep"
)

// The progress lines name a level as its mode does: an uncapped rate
// level is "rate=16/s", not "C=0"; a closed loop's stays "C=4".
func TestProgressNamesTheLevelByItsMode(t *testing.T) {
	t.Parallel()
	p := newProgress(&bytes.Buffer{}, sweepPlan{est: rateLevels{rates: []float64{16}}, repeat: 1, tokens: 10}, nil)
	p.start(0, 0, 40)
	p.starting(sweep.Level{Mode: sweep.RateMode, Rate: 16})
	p.mu.Lock()
	line := p.liveLine()
	p.mu.Unlock()
	if !strings.HasPrefix(line, "level rate=16/s: 0/40 requests") {
		t.Errorf("rate level's live line: %q", line)
	}
	var buf bytes.Buffer
	p = newProgress(&buf, sweepPlan{est: closedLevels{4, 8}, repeat: 1, requests: 8, tokens: 10}, nil)
	p.start(4, 0, 8)
	p.starting(sweep.Level{Mode: sweep.ClosedMode, Concurrency: 4})
	p.levelEnded("level C=4 done", true)
	if got := buf.String(); !strings.Contains(got, "a request at C=4)\n") {
		t.Errorf("closed level's re-estimate: %q", got)
	}
}
