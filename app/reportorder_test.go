package app

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
)

// TestReportRowsSortedAsOnTheConsole: a --levels auto sweep runs its
// levels out of order (1, 2, 4, 8, then back down to bisect); report.html
// lists them sorted as the console does.
func TestReportRowsSortedAsOnTheConsole(t *testing.T) {
	t.Parallel()
	// The default preset decodes ~277 tok/s a stream at C=4 and ~237 at
	// C=8: the search runs 1, 2, 4, 8, then 6 and 5.
	dir := sweepInto(t, "--sim", "--levels", "auto", "--auto-max", "16", "--requests", "4",
		"--max-tokens", "32", "--slo-decode-tps", "250")
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Levels []struct {
			Concurrency int `json:"concurrency"`
		} `json:"levels"`
	}
	readJSON(t, filepath.Join(dir, "summary.json"), &sum)
	var ran []int
	for _, l := range sum.Levels {
		ran = append(ran, l.Concurrency)
	}
	if slices.IsSorted(ran) {
		t.Logf("the search ran its levels in order (%v) this time: the check below cannot fail", ran)
	}
	firstCells := regexp.MustCompile(`<tr><td class="[^"]*">([0-9]+)`)
	var cs []int
	for _, m := range firstCells.FindAllStringSubmatch(string(page), -1) {
		c, _ := strconv.Atoi(m[1])
		cs = append(cs, c)
	}
	// Each table lists the levels once, ascending: a drop in C starts the
	// next table, which starts at the lowest level again.
	sorted := slices.Sorted(slices.Values(ran))
	for i := 0; i+len(sorted) <= len(cs); i += len(sorted) {
		if got := cs[i : i+len(sorted)]; !slices.Equal(got, sorted) {
			t.Errorf("report.html table rows by C %v, want %v (the run's order was %v)", got, sorted, ran)
		}
	}
	if len(cs) < len(sorted) {
		t.Errorf("report.html has %d level rows, want at least %d", len(cs), len(sorted))
	}
}
