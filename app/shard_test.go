package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/sweep"
)

func TestShardGivenAPastStartFails(t *testing.T) {
	out := filepath.Join(t.TempDir(), "late")
	past := time.Now().Add(-10 * time.Second).UTC().Format(time.RFC3339)
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--url", "http://127.0.0.1:9/v1", "--model", "m",
		"--levels", "4", "--shard", "1/4", "--start-at", past, "--level-duration", "2s", "--out", out)
	if code != ExitFailure || !strings.Contains(stderr, "already past") || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q: want exit 1 and one line saying the start is past", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a shard that did not start left %s behind (%v)", out, err)
	}
}

func TestShardFlagsNeedTheirSchedule(t *testing.T) {
	for _, args := range [][]string{
		{"--shard", "4/4", "--start-at", "2030-01-01T00:00:00Z", "--level-duration", "2s"},
		{"--shard", "0/4"},
		{"--shard", "0/4", "--start-at", "tomorrow", "--level-duration", "2s"},
		{"--shard", "0/8", "--start-at", "2030-01-01T00:00:00Z", "--level-duration", "2s", "--levels", "4"},
		{"--shard-from-env", "--start-at", "2030-01-01T00:00:00Z", "--level-duration", "2s"},
		{"--shard", "0/4", "--start-at", "2030-01-01T00:00:00Z", "--level-duration", "2s", "--rates", "auto"},
		{"--shard", "0/4", "--start-at", "2030-01-01T00:00:00Z", "--level-duration", "2s", "--rates", "1,2", "--max-concurrency", "3"},
		{"--shard", "0/4", "--start-at", "2030-01-01T00:00:00Z", "--level-duration", "2s", "--rates", "1,2", "--requests", "10"},
		{"--shard", "0/4", "--start-at", "2030-01-01T00:00:00Z", "--level-duration", "2s", "--rates", "1,2", "--warmup", "2"},
		{"--shard", "0/4", "--start-at", "2030-01-01T00:00:00Z", "--level-duration", "2s", "--rates", "0.5,8"},
	} {
		code, _, stderr := runCLI(t, context.Background(), append([]string{"sweep", "--url", "http://127.0.0.1:9/v1"}, args...)...)
		if code != ExitUsage || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q: want a one-line usage error", args, code, stderr)
		}
	}
}

// TestShardSplitTakesItsPart: shard i of N sends, as its request m, the
// prompt of the run's request m×N + i, and draws its part of every plan.
func TestShardSplitTakesItsPart(t *testing.T) {
	s := shardOptions{Index: 1, Count: 4}
	cfg := sweep.Config{Prompt: func(seq int) client.Prompt { return client.Prompt{ID: seq} }}
	s.split(&cfg)
	for m, want := range []int{1, 5, 9, 13} {
		if got := cfg.Prompt(m).ID; got != want {
			t.Errorf("shard 1/4's request %d sends prompt %d, want %d", m, got, want)
		}
	}
	if cfg.Rate.Part != (sweep.Part{Index: 1, Of: 4}) {
		t.Errorf("shard 1/4 draws part %+v of the plans", cfg.Rate.Part)
	}
}
