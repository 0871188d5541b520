package compare

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/sweep"
)

// capped caps an open-loop run's levels at c requests in flight, as sweep
// --rates with --max-concurrency writes them.
func capped(r Run, c int) Run {
	for i := range r.Levels {
		r.Levels[i].Concurrency = c
		for j := range r.Levels[i].Records {
			r.Levels[i].Records[j].Concurrency = c
		}
	}
	return r
}

// compare.csv names each level by its key, each column holding what its
// name says: the mode, the level's name, its C (a closed loop's workers or
// sessions, an open loop's cap, empty without one) and its rate (empty in
// a closed loop); the tables head the level column in the mode's words:
// "C" over a closed loop's C, "sessions" over a sessions run's, "level"
// over an open loop's names.
func TestCompareNamesLevelsByKey(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(name string, seed uint64) Run
		cols [4]string // mode, level, concurrency, rate of the first level
		head string    // of both tables' level column
		cell string    // the first level's cell in the tables
	}{
		{"closed", func(n string, s uint64) Run { return base.run(n, s, 4, 2) },
			[4]string{"closed", "C=2", "2", ""}, "C", "2"},
		{"sessions", func(n string, s uint64) Run { return asMode(base.run(n, s, 4, 2), sweep.SessionsMode) },
			[4]string{"sessions", "C=2", "2", ""}, "sessions", "2"},
		{"rate", func(n string, s uint64) Run { return asRates(base.run(n, s, 4, 2), 2.5) },
			[4]string{"rate", "rate=2.5/s", "", "2.5"}, "level", "rate=2.5/s"},
		{"rate capped", func(n string, s uint64) Run { return capped(asRates(base.run(n, s, 4, 2), 2.5), 4) },
			[4]string{"rate", "rate=2.5/s C≤4", "4", "2.5"}, "level", "rate=2.5/s C≤4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab, err := Compare([]Run{tc.run("a", 1), tc.run("b", 2)}, Options{Resamples: 100})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := tab.WriteCSV(&b); err != nil {
				t.Fatal(err)
			}
			rows, err := csv.NewReader(&b).ReadAll()
			if err != nil || len(rows) < 2 {
				t.Fatalf("compare.csv: %d rows, %v", len(rows), err)
			}
			cell := map[string]string{}
			for i, h := range rows[0] {
				cell[h] = rows[1][i]
			}
			if got := [4]string{cell["mode"], cell["level"], cell["concurrency"], cell["rate"]}; got != tc.cols {
				t.Errorf("mode, level, concurrency, rate = %q, want %q", got, tc.cols)
			}
			var text strings.Builder
			if err := tab.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			heads, cells := levelColumn(text.String())
			if len(heads) != 2 || heads[0] != tc.head || heads[1] != tc.head || cells[0] != tc.cell || cells[1] != tc.cell {
				t.Errorf("the tables' level columns head %q over %q, want %q over %q:\n%s", heads, cells, tc.head, tc.cell, text.String())
			}
		})
	}
}

// levelColumn is the first column of each table of a comparison's text:
// its heading and its first cell (the line under the heading).
func levelColumn(text string) (heads, cells []string) {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.HasSuffix(l, "  verdict") || strings.Contains(l, "TTFT p50 A") {
			heads = append(heads, strings.Fields(l)[0])
			cell := strings.TrimSpace(lines[i+1])
			if j := strings.Index(cell, "  "); j > 0 {
				cell = cell[:j]
			}
			cells = append(cells, cell)
		}
	}
	return heads, cells
}
