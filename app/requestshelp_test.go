package app

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/mode/rate"
	"github.com/toksweep/toksweep/sweep"
)

// --requests' help says each mode's auto count as the sweep counts it: the
// closed loop's per worker, a rate level's seconds of arrivals (not the
// closed loop's rule for every mode), each with its minimum; and a
// replay's. The figures are read from the help and checked against the
// counting functions at several levels.
func TestRequestsHelpSaysEachModesAutoCount(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCLI(t, context.Background(), "sweep", "--help")
	if code != 0 {
		t.Fatalf("sweep --help: exit %d, stderr %q", code, stderr)
	}
	var help string
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "--requests ") {
			help = line
		}
	}
	if help == "" {
		t.Fatalf("no --requests in sweep --help:\n%s", stdout)
	}
	num := func(re string) int {
		t.Helper()
		m := regexp.MustCompile(re).FindStringSubmatch(help)
		if m == nil {
			t.Fatalf("--requests help %q lacks %s", help, re)
		}
		n, err := strconv.Atoi(m[1])
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	perWorker, closedMin := num(`auto is (\d+) per worker`), num(`per worker, at least (\d+)`)
	secs, rateMin := num(`at a rate, (\d+)s of arrivals`), num(`s of arrivals, at least (\d+)`)
	for _, c := range []int{1, 2, 3, 16, 64} {
		if got, said := sweep.AutoRequests(c), max(perWorker*c, closedMin); got != said {
			t.Errorf("C=%d: auto counts %d, the help says %d", c, got, said)
		}
	}
	for _, r := range []float64{0.5, 1, 2, 4, 16, 25.1} {
		said := max(int(float64(secs)*r+0.999999), rateMin)
		if got := rate.AutoRequests(r); got != said {
			t.Errorf("rate %g/s: auto counts %d, the help says %d", r, got, said)
		}
	}
	if !strings.Contains(help, "replay: the trace's requests") {
		t.Errorf("--requests help %q does not say a replay's count", help)
	}
}
