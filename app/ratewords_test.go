package app

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/mode/rate"
	"github.com/toksweep/toksweep/rundir"
)

// TestRateRunSentencesQuoteTheOfferedRate: on a rate run against the
// simulator, every sentence that names a rate level (the level lines, the
// closing paragraph, report.html's answer, plan's choice and its X) names
// it as its plan offered it, the nominal rate in brackets, in the one format
// sweep.RateText defines: "18.2 req/s offered (nominal 16)". The offered
// rates are recomputed here from the run's records. Before, the closing
// paragraph said "the limit is above 16 req/s … still growing at 16 req/s
// … The highest stable level was 16 req/s", and plan "rate=16/s is the
// largest tested level" with "(offered 18.1975 req/s [16 nominal])".
func TestRateRunSentencesQuoteTheOfferedRate(t *testing.T) {
	t.Parallel()
	// The closing paragraph's sentences below are those of a run whose
	// levels were all stable and whose 16 req/s level met the SLO (a
	// client-limited level is still answered on, with a caution; in a
	// whole-suite run both levels are flagged client-limited every time).
	// A starved machine can make a level unstable
	// (seen in whole-package -race runs: the answer fell back to 8 req/s),
	// so a run that says so is run again, at most 3 times; the last one's
	// level lines, plan and words are judged whatever it says, and its
	// closing-paragraph checks only when its 16 req/s level held.
	var dir, stdout, stderr string
	held := false
	for attempt := 1; attempt <= 3 && !held; attempt++ {
		dir = filepath.Join(t.TempDir(), "run")
		var code int
		code, stdout, stderr = runCLI(t, context.Background(), "sweep", "--sim", "--sim-preset", "fast", "--rates", "8,16",
			"--requests", "12", "--max-tokens", "16", "--slo-ttft-p95", "1s", "--charts", "none", "--out", dir)
		if code != ExitOK {
			t.Fatalf("sweep: exit %d\n%s", code, stderr)
		}
		held = true
		// plan needs every level below the answer stable too: an
		// unstable 8 req/s level bears no verdict (plan exits 1).
		for _, row := range readLevels(t, dir) {
			top := num(t, row, "rate") == 16
			if row["unstable"] != "false" || top && row["slo_pass"] != "true" {
				held = false
				t.Logf("attempt %d: rate=%s/s unstable %s, SLO pass %s: the machine was busy",
					attempt, row["rate"], row["unstable"], row["slo_pass"])
			}
		}
	}
	run, err := rundir.ScanRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	said := map[float64]string{} // nominal rate → its words
	for _, s := range run.Stats() {
		if !(s.OfferedRPS > 0) {
			t.Fatalf("rate=%g/s: no offered rate recorded", s.Rate)
		}
		said[s.Rate] = rate.Text(s.OfferedRPS, s.Rate)
	}
	if err := run.ScanErr(); err != nil || len(said) != 2 {
		t.Fatalf("levels %v (%v), want rates 8 and 16", said, err)
	}
	for _, r := range []float64{8, 16} {
		if !regexp.MustCompile(`^[0-9.]+ req/s offered \(nominal [0-9.]+\)$`).MatchString(said[r]) {
			t.Fatalf("RateText %q is not 'N req/s offered (nominal M)'", said[r])
		}
	}
	closing := stdout[strings.LastIndex(strings.TrimRight(stdout, "\n"), "\n")+1:]
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	code, planOut, planErr := runCLI(t, context.Background(), "plan", "--peak-rps", "100", dir)
	if code != ExitOK && held {
		t.Fatalf("plan: exit %d\n%s", code, planErr)
	}
	for _, c := range []struct {
		where, text, want string
		ifHeld            bool
	}{
		{"level line", stderr, "level rate=8/s done (completed): " + said[8] + ", ", false},
		{"level line", stderr, "level rate=16/s done (completed): " + said[16] + ", ", false},
		{"closing paragraph", closing, "This server sustains " + said[16] + " with TTFT p95 ≤ 1s", true},
		{"closing paragraph", closing, "the limit is above " + said[16] + ".", true},
		{"closing paragraph", closing, "The highest stable level was " + said[16] + ".", true},
		{"report.html", string(html), "This server sustains " + said[16] + " with", true},
		{"plan", planOut, "Level: " + said[16] + " is the largest tested level", true},
		{"plan", planOut, "achieved_rps", true},
		{"plan", planOut, ", at " + said[16] + "\n", true},
	} {
		if c.ifHeld && !held {
			t.Logf("not judged (rate=16/s did not hold in 3 runs): %s has %q", c.where, c.want)
			continue
		}
		if !strings.Contains(c.text, c.want) {
			t.Errorf("%s lacks %q:\n%s", c.where, c.want, c.text)
		}
	}
	// No sentence names a level by its nominal rate alone.
	bare := regexp.MustCompile(`(at|above|was|is|sustains) (8|16) req/s`)
	for where, text := range map[string]string{"stdout": stdout, "stderr": stderr, "plan": planOut} {
		if m := bare.FindString(text); m != "" {
			t.Errorf("%s names a rate level by its nominal rate alone (%q):\n%s", where, m, text)
		}
	}
}
