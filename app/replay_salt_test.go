package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/sim"
)

// azureTrace writes an Azure-format trace (no hash ids: no block is
// shared between its requests) of n requests gap milliseconds apart,
// prompts of 300 to 790 tokens, outputs of 4.
func azureTrace(t *testing.T, n, gapMS int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("TIMESTAMP,ContextTokens,GeneratedTokens\n")
	for i := range n {
		ms := i * gapMS
		fmt.Fprintf(&b, "2023-11-16 %02d:%02d:%02d.%03d0000,%d,4\n", 10+ms/3600000, ms/60000%60, ms/1000%60, ms%1000, 300+(i*70)%500)
	}
	path := filepath.Join(t.TempDir(), "azure.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// replaySalt is the salt a replay run recorded in summary.json.
func replaySalt(t *testing.T, dir string) uint64 {
	t.Helper()
	var sum struct {
		Salt *uint64 `json:"replay_salt"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil || json.Unmarshal(data, &sum) != nil || sum.Salt == nil {
		t.Fatalf("summary.json's replay_salt: %v (%s)", err, data)
	}
	return *sum.Salt
}

// Two replays of one trace with no shared blocks against one simulator:
// each run draws its own salt, so the second finds none of the first's
// blocks cached (issue #35: it found 98.6–99.1%, and its TTFT fell); with
// --seed the salt is the seed's, the same in both runs.
func TestSecondReplayFindsNoCache(t *testing.T) {
	t.Parallel()
	cfg, err := sim.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	url := startSimWith(t, cfg)
	path := azureTrace(t, 30, 50)
	run := func(extra ...string) (string, map[string]string) {
		out := filepath.Join(t.TempDir(), "run")
		args := append([]string{"sweep", "--url", url, "--api", "completions", "--prompt-token-ids", "--trace", path, "--out", out}, extra...)
		if code, _, stderr := runCLI(t, context.Background(), args...); code != ExitOK {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		return out, readLevels(t, out)[0]
	}
	first, row1 := run()
	second, row2 := run()
	for i, row := range []map[string]string{row1, row2} {
		if hits := num(t, row, "server_prefix_hit_rate"); hits > 0.03 {
			t.Errorf("run %d: server_prefix_hit_rate %.4f, want ≤ 0.03: it found another run's blocks", i+1, hits)
		}
	}
	if replaySalt(t, first) == replaySalt(t, second) {
		t.Errorf("both runs recorded salt %d", replaySalt(t, first))
	}
	a, _ := run("--seed", "7")
	b, _ := run("--seed", "7")
	if replaySalt(t, a) != replaySalt(t, b) {
		t.Errorf("--seed 7 twice: salts %d and %d, want one", replaySalt(t, a), replaySalt(t, b))
	}
}

// A sparse trace (20 requests 100 s apart: 0.01 req/s) replayed at 2000×
// offers 20 req/s: accepted, as any speed whose offered rate stays under
// the rate bound (issue #35: --replay-speed stopped at 1000). A speed
// over this trace's bound is refused naming it.
func TestReplaySpeedBoundedByTheRate(t *testing.T) {
	t.Parallel()
	path := azureTrace(t, 20, 100000)
	out := filepath.Join(t.TempDir(), "run")
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--sim", "--sim-preset", "fast", "--trace", path, "--replay-speed", "2000", "--metrics-url", "off", "--out", out)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	row := readLevels(t, out)[0]
	if num(t, row, "rate") != 2000 || row["requests_ok"] != "20" {
		t.Errorf("level rate %q, %q ok; want 2000 and 20", row["rate"], row["requests_ok"])
	}
	code, _, stderr = runCLI(t, context.Background(), "sweep", "--sim", "--trace", path, "--replay-speed", "20000", "--out", filepath.Join(t.TempDir(), "r"))
	want := "over the 10000 req/s bound: this trace's highest speed is 10000×"
	if code != ExitUsage || !strings.Contains(stderr, want) || strings.Count(stderr, "\n") != 1 {
		t.Errorf("20000×: exit %d, stderr %q; want %d and one line with %q", code, stderr, ExitUsage, want)
	}
}
