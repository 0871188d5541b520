package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/rundir"
	"github.com/toksweep/toksweep/sim"
	"github.com/toksweep/toksweep/sweep"
)

// TestTierSearchAgreesWithSingleSLOSearches runs --levels auto once with
// three tiers and, for each tier, a --levels auto search of its bound
// alone. Each tier's answer must be its own search's within one level
// (the search's granularity, C ± 1: two runs of a loaded machine measure
// a little apart), and the shared search must spend fewer load-seconds
// than the three searches together, as measured (each run's levels'
// MeasuredSpan). The simulator's step grows steeply with the batch, so
// that each decode bound, midway between the modelled per-stream rates
// at C = b and b+1, stands 6-9% from both.
// toksweep report re-renders the shared run's closing lines as run.
func TestTierSearchAgreesWithSingleSLOSearches(t *testing.T) {
	// Serial: the verdicts are rates, which a starved machine lowers.
	cfg, err := sim.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	cfg.DecodeBase, cfg.DecodePerSeq = time.Millisecond, 250*time.Microsecond
	url := startSimWith(t, cfg)
	rate := func(b int) float64 { return 1 / (cfg.DecodeBase + time.Duration(b)*cfg.DecodePerSeq).Seconds() }
	mid := func(b int) string { return fmt.Sprint(int((rate(b) + rate(b+1)) / 2)) }
	tiers := []struct{ name, decode string }{{"interactive", mid(1)}, {"standard", mid(2)}, {"batch", mid(4)}}
	base := []string{"sweep", "--url", url, "--levels", "auto", "--requests", "8", "--max-tokens", "64"}
	sweepOnce := func(out string, args ...string) string {
		code, stdout, stderr := runCLI(t, context.Background(), slices.Concat(base, []string{"--out", out}, args)...)
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		return stdout
	}
	var misses []string
	for try := range 3 {
		misses = nil
		dir := t.TempDir()
		var args []string
		for _, tr := range tiers {
			args = append(args, "--slo-tier", fmt.Sprintf("%s:decode>=%s", tr.name, tr.decode))
		}
		shared := filepath.Join(dir, "tiers")
		stdout := sweepOnce(shared, args...)
		got := readTierSummary(t, shared)
		cost := readTierSearch(t, shared)
		if len(got.Tiers) != len(tiers) || cost == nil || len(cost.Tiers) != len(tiers) {
			t.Fatalf("summary.json: %d tiers, tier_search %+v: want %d of each", len(got.Tiers), cost, len(tiers))
		}
		if !strings.Contains(stdout, cost.Sentence()) {
			t.Fatalf("stdout lacks the search's cost %q:\n%s", cost.Sentence(), stdout)
		}
		apart := 0.0
		for i, tr := range tiers {
			single := filepath.Join(dir, tr.name)
			sweepOnce(single, "--slo-decode-tps", tr.decode)
			c := readTierSummary(t, single).Recommendation.Recommended
			apart += runLoadSeconds(t, single)
			t.Logf("try %d: tier %s: %s (asked %v), its own search C=%v", try, tr.name, got.Tiers[i].Level, cost.Tiers[i].Levels, deref(c))
			if g := got.Tiers[i].Concurrency; g == nil || c == nil || *g-*c > 1 || *c-*g > 1 {
				misses = append(misses, fmt.Sprintf("tier %s: %s, its own search C=%v", tr.name, got.Tiers[i].Level, deref(c)))
			}
		}
		t.Logf("try %d: shared %d levels, %.1f load-seconds (%.1f counted per tier); three searches %.1f load-seconds", try, cost.Levels, cost.LoadSeconds, cost.SeparateLoadSeconds, apart)
		if !(cost.LoadSeconds < apart) || cost.Levels >= cost.SeparateLevels {
			misses = append(misses, fmt.Sprintf("shared %d levels, %.1f load-seconds; the three searches %.1f", cost.Levels, cost.LoadSeconds, apart))
		}
		if len(misses) == 0 {
			code, again, stderr := runCLI(t, context.Background(), "report", shared)
			if code != ExitOK || again != stdout {
				t.Errorf("toksweep report: exit %d (%s); stdout differs from the sweep's:\n%s\nwant\n%s", code, stderr, again, stdout)
			}
			return
		}
	}
	t.Errorf("after 3 tries: %s", strings.Join(misses, "; "))
}

// readTierSearch is summary.json's tier_search in dir.
func readTierSearch(t *testing.T, dir string) *report.TierSearchJSON {
	t.Helper()
	var s struct {
		TierSearch *report.TierSearchJSON `json:"tier_search"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err == nil {
		err = json.Unmarshal(b, &s)
	}
	if err != nil {
		t.Fatalf("summary.json: %v", err)
	}
	return s.TierSearch
}

// runLoadSeconds is the load-seconds of every level of the run in dir.
func runLoadSeconds(t *testing.T, dir string) float64 {
	t.Helper()
	run, err := rundir.ReadRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	stats := run.Stats()
	var keys []sweep.LevelKey
	for _, s := range stats {
		if !slices.Contains(keys, s.Key()) {
			keys = append(keys, s.Key())
		}
	}
	return report.LoadSeconds(stats, keys)
}
