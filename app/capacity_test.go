package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/rundir"
	"github.com/toksweep/toksweep/sim"
)

// TestSweepSLORecommendationAgreesWithCSV runs an SLO sweep against the
// simulator and checks that the printed recommendation, summary.json and
// the slo_pass column of levels.csv tell the same story.
func TestSweepSLORecommendationAgreesWithCSV(t *testing.T) {
	// Serial: a starved machine shrinks C=16's steady window below what bears a verdict.
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), "sweep", "--sim", "--sim-preset", "fast",
		"--levels", "1,2,4,8,16", "--requests", "4", "--max-tokens", "24", "--out", out,
		"--slo-decode-tps", "1", "--slo-ttft-p95", "10s")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stderr, "\r") {
		t.Error("stderr is not a terminal but got carriage returns")
	}
	rows := readLevels(t, out)
	best := 0
	for _, row := range rows {
		if row["slo_pass"] != "true" {
			t.Fatalf("C=%s slo_pass=%q (%s): a 1 tok/s SLO must pass", row["concurrency"], row["slo_pass"], row["slo_failed"])
		}
		best = int(num(t, row, "concurrency"))
	}
	want := fmt.Sprintf("This server serves %s with", usersText(best))
	if !strings.Contains(stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, stdout)
	}
	var sum struct {
		Recommendation struct {
			Recommended *int   `json:"recommended_concurrency"`
			SLO         string `json:"slo"`
		} `json:"recommendation"`
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil || json.Unmarshal(b, &sum) != nil {
		t.Fatalf("summary.json: %v", err)
	}
	if r := sum.Recommendation.Recommended; r == nil || *r != best || sum.Recommendation.SLO == "" {
		t.Errorf("summary.json recommendation = %+v, want %d", sum.Recommendation, best)
	}
}

// TestSweepSLOFailureIsNamed checks a failing criterion is named per level.
func TestSweepSLOFailureIsNamed(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), "sweep", "--sim", "--sim-preset", "fast",
		"--levels", "1,2", "--requests", "2", "--max-tokens", "8", "--out", out, "--slo-decode-tps", "1000000")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, row := range readLevels(t, out) {
		if row["slo_pass"] != "false" || !strings.HasPrefix(row["slo_failed"], "decode_tps_p10 ") {
			t.Errorf("C=%s slo_pass=%q slo_failed=%q", row["concurrency"], row["slo_pass"], row["slo_failed"])
		}
	}
	if !strings.Contains(stdout, "No level meets the SLO") {
		t.Errorf("stdout lacks the no-pass verdict:\n%s", stdout)
	}
}

// TestSweepAutoLevelsWithSim runs --levels auto against the simulator with
// an SLO nothing can fail: the search must stop by itself at saturation or
// --auto-max, in few levels.
func TestSweepAutoLevelsWithSim(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--sim", "--sim-preset", "fast",
		"--levels", "auto", "--auto-max", "8", "--requests", "2", "--max-tokens", "8", "--out", out)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows := readLevels(t, out)
	if len(rows) < 2 || len(rows) > 4 || rows[0]["concurrency"] != "1" {
		t.Errorf("auto levels ran %d levels; want 1,2,4,8 at most", len(rows))
	}
	var sum report.Summary
	readJSON(t, filepath.Join(out, rundir.SummaryFile), &sum)
	if c := sum.Config; c == nil || !c.LevelsAuto || c.AutoMax != 8 || c.Levels != nil {
		t.Errorf("summary.json config = %+v; want levels_auto, auto_max 8 and no levels", c)
	}
}

func TestSavedSLORoundTrips(t *testing.T) {
	t.Parallel()
	o := &options{Line: mode.Line{SLO: report.SLO{DecodeTPS: 40, TTFTP95: 1500 * time.Millisecond, ErrorRate: new(0.01), MaxGapP95: 1200 * time.Millisecond}}}
	b, err := json.Marshal(o.runConfig())
	if err != nil {
		t.Fatal(err)
	}
	var back report.RunConfig
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	got, ok := back.Objective()
	if !ok || got.DecodeTPS != o.SLO.DecodeTPS || got.TTFTP95 != o.SLO.TTFTP95 || got.E2ETPS != 0 ||
		got.ErrorRate == nil || *got.ErrorRate != *o.SLO.ErrorRate {
		t.Errorf("Objective = %+v (%v), want %+v", got, ok, o.SLO)
	}
	if _, ok := (&report.RunConfig{URL: "x"}).Objective(); ok {
		t.Error("a config without an SLO must not yield one")
	}
}

// TestSweepSLOFailsMidSweep: on a simulator whose decode step takes 6 ms
// plus 3 ms per running stream, per-stream decode is 1/9ms = 111 tok/s at
// C=1, 1/12ms = 83 tok/s at C=2 and 1/54ms ≈ 18.5 tok/s at C=16 (each
// level runs at least C requests, so all 16 stream at once). A 40 tok/s
// SLO passes the low levels by 2× or more and fails C=16 by 2×: which
// level fails is the simulator's arithmetic, not the machine's speed (on
// the default preset's ~3 ms steps, ~317 and ~300 tok/s against 200, a
// busy run failed C=1). The decode rate is the client's, though, and a
// client held up in mid-stream has read one of four 16-token streams at
// 27.9–48.8 tok/s against 50 (one gap of 190–451 ms); with 48 tokens a
// C=2 stream must be held up 0.6 s to fail. A run that misses is run
// again, up to timingAttempts, and is excused only when every attempt
// was starved (runStarved) or flagged client-limited, as the timing tests
// are. The recommendation must name the highest level that passes with
// all below it, and the first failure, as levels.csv records them.
func TestSweepSLOFailsMidSweep(t *testing.T) {
	t.Parallel()
	url := steadySim(t, func(c *sim.Config) { c.DecodeBase, c.DecodePerSeq = 6*time.Millisecond, 3*time.Millisecond })
	starved := true // every attempt so far missed on a starved machine
	for attempt := 1; ; attempt++ {
		out := t.TempDir()
		code, stdout, stderr := runCLI(t, context.Background(), "sweep", "--url", url,
			"--levels", "1,2,16", "--requests", "4", "--max-tokens", "48", "--out", out,
			"--slo-decode-tps", "40", "--metrics-url", "off")
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		best, firstFail, limited := 0, 0, false
		for _, row := range readLevels(t, out) {
			c := int(num(t, row, "concurrency"))
			limited = limited || row["client_limited"] == "true"
			switch {
			case row["slo_pass"] == "true" && firstFail == 0:
				best = c
			case row["slo_pass"] == "false" && firstFail == 0:
				firstFail = c
			}
		}
		if best == 2 && firstFail == 16 {
			for _, want := range []string{
				fmt.Sprintf("This server serves %s with", usersText(best)),
				fmt.Sprintf("At %s the SLO fails: decode_tps_p10 ", usersText(firstFail)),
			} {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			return
		}
		miss := fmt.Sprintf("want C=1,2 to pass and C=16 to fail, got best %d first fail %d", best, firstFail)
		starved = starved && (limited || runStarved(t, out))
		switch {
		case attempt >= timingAttempts && starved:
			t.Logf("not judged: the machine starved every attempt; last: %s", miss)
			return
		case attempt >= timingAttempts:
			t.Fatalf("%s\n%s", miss, stdout)
		}
		t.Logf("attempt %d: %s", attempt, miss)
	}
}

// usersText is how the closing paragraph names n concurrent users.
func usersText(n int) string {
	if n == 1 {
		return "1 concurrent user"
	}
	return fmt.Sprintf("%d concurrent users", n)
}
