package report

import (
	"bytes"
	"encoding/csv"
	"testing"

	"github.com/toksweep/toksweep/sweep"
)

// The concurrency column is headed in its levels' mode's words: "C" for a
// closed loop, "sessions" for multi-turn sessions, "C" for an open loop's
// cap (beside its "rate/s"); levels.csv calls it "concurrency" in every
// mode (a stable interface).
func TestConcurrencyColumnHeadIsTheModes(t *testing.T) {
	sessions := Summarize(level(3, sessionLevel()...), Settings{})
	capped := Summarize(openLevel(10, 30, constant(0), constant(100*msec)), Settings{})
	capped.Concurrency = 4
	for _, c := range []struct {
		stats      LevelStats
		mode, head string
	}{
		{Summarize(level(2, closedLoop(2, 5, 0, 100*msec, 100*msec, 10, 5)...), Settings{}), sweep.ClosedMode, "C"},
		{sessions, sweep.SessionsMode, "sessions"},
		{capped, sweep.RateMode, "C"},
	} {
		if c.stats.Mode != c.mode {
			t.Fatalf("level of mode %q, want %q", c.stats.Mode, c.mode)
		}
		var head string
		for _, lt := range LevelTables([]LevelStats{c.stats}) {
			for _, col := range lt.Cols {
				if col.Name == "concurrency" && head == "" {
					head = col.Head
				}
			}
		}
		if head != c.head {
			t.Errorf("%s: concurrency column headed %q, want %q", c.mode, head, c.head)
		}
		var b bytes.Buffer
		w, err := NewLevelsCSV(&b, nil)
		if err == nil {
			err = w.Write(c.stats)
		}
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(&b).ReadAll()
		if err != nil || len(rows) < 1 || rows[0][0] != "concurrency" {
			t.Errorf("%s: levels.csv header %v (%v), want it to start with concurrency", c.mode, rows, err)
		}
	}
}
