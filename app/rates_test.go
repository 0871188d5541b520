package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad open-loop flags are one-line usage errors, before any request.
func TestRateFlagErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--rates", "0"}, "invalid --rates"},
		{[]string{"--rates", "1,x"}, `"x" is not a rate`},
		{[]string{"--rates", "1e9"}, "invalid --rates"},
		{[]string{"--rates", "1e-300"}, "from 0.001 to 10000"}, // the floor (issue 25, item 5)
		{[]string{"--rates", "0.0009,1"}, "invalid --rates"},
		{[]string{"--rates", "auto,2"}, `"auto" is not a rate`},
		{[]string{"--rates", "1", "--levels", "1,2"}, "exclusive"},
		{[]string{"--rates", "1", "--arrival", "lumpy"}, "invalid --arrival"},
		{[]string{"--rates", "1", "--arrival", "poisson", "--burstiness", "2"}, "applies to --arrival gamma"},
		{[]string{"--rates", "1", "--arrival", "gamma", "--burstiness", "0"}, "invalid --burstiness"},
		{[]string{"--rates", "1", "--max-concurrency", "0"}, "invalid --max-concurrency"},
		{[]string{"--max-concurrency", "4"}, "give --rates or --trace too"},
		{[]string{"--arrival", "gamma"}, "give --rates too"},
	} {
		args := append([]string{"sweep", "--sim", "--out", filepath.Join(t.TempDir(), "r")}, tt.args...)
		code, _, stderr := runCLI(t, context.Background(), args...)
		if code != ExitUsage || !strings.Contains(stderr, tt.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want %d and one line with %q", tt.args, code, stderr, ExitUsage, tt.want)
		}
	}
}

// A rate sweep against the simulator: one row per rate with its offered
// rate exactly as planned (constant arrivals), the open-loop columns
// filled, the run configuration recorded, and `report` re-rendering the run
// byte for byte.
func TestRateSweepAgainstSim(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := runCLI(t, context.Background(), "sweep", "--sim", "--sim-preset", "fast", "--rates", "20,10",
		"--requests", "20", "--arrival", "constant", "--max-tokens", "16", "--out", out, "--metrics-url", "off")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	rows := readLevels(t, out)
	if len(rows) != 2 {
		t.Fatalf("levels.csv has %d rows", len(rows))
	}
	for i, want := range []float64{10, 20} { // sorted, with a warning
		r := rows[i]
		if num(t, r, "rate") != want || !within(num(t, r, "offered_rps"), want, 1e-6) || num(t, r, "requests_ok") != 20 {
			t.Errorf("row %d: rate %s offered %s ok %s, want %v", i, r["rate"], r["offered_rps"], r["requests_ok"], want)
		}
		for _, col := range []string{"achieved_rps", "dispatch_delay_p99_ms", "inflight_peak", "unstable", "tpot_p50_ms"} {
			if r[col] == "" {
				t.Errorf("row %d: %s is empty", i, col)
			}
		}
	}
	if !strings.Contains(stderr, "sorted and de-duplicated to 10,20") || !strings.Contains(stdout, "rate/s") {
		t.Errorf("no sorting warning or no rate column:\n%s\n%s", stderr, stdout)
	}
	sum, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if !strings.Contains(string(sum), `"open_loop": {`) || !strings.Contains(string(sum), `"arrival": "constant"`) {
		t.Errorf("summary.json does not record the open loop:\n%s", sum)
	}
	checkRerendered(t, out)
}
