package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode/closed"
	"github.com/toksweep/toksweep/mode/rate"
	"github.com/toksweep/toksweep/sweep"
)

func TestShardGivenAPastStartFails(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	soon := time.Now().Add(10 * time.Minute).UTC().Format(time.RFC3339)
	for _, args := range [][]string{
		{"--shard", "4/4", "--start-at", soon, "--level-duration", "2s"},
		{"--shard", "0/4"},
		{"--shard", "0/4", "--start-at", "tomorrow", "--level-duration", "2s"},
		{"--shard", "0/8", "--start-at", soon, "--level-duration", "2s", "--levels", "4"},
		{"--shard-from-env", "--start-at", soon, "--level-duration", "2s"},
		{"--shard", "0/4", "--start-at", soon, "--level-duration", "2s", "--rates", "auto"},
		{"--shard", "0/4", "--start-at", soon, "--level-duration", "2s", "--rates", "1,2", "--max-concurrency", "3"},
		{"--shard", "0/4", "--start-at", soon, "--level-duration", "2s", "--rates", "1,2", "--requests", "10"},
		{"--shard", "0/4", "--start-at", soon, "--level-duration", "2s", "--rates", "1,2", "--warmup", "2"},
		{"--shard", "0/4", "--start-at", soon, "--level-duration", "2s", "--rates", "0.5,8"},
	} {
		code, _, stderr := runCLI(t, context.Background(), append([]string{"sweep", "--url", "http://127.0.0.1:9/v1"}, args...)...)
		if code != ExitUsage || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q: want a one-line usage error", args, code, stderr)
		}
	}
}

// A start far ahead (the manifest's placeholder) is refused in one line
// unless --max-start-wait allows it; an allowed one says how long the shard
// will wait and when its levels end (issue 25, item 12: it waited
// silently while the estimate said "under a minute").
func TestShardFarStartIsBounded(t *testing.T) {
	t.Parallel()
	far := []string{"sweep", "--url", "http://127.0.0.1:9/v1", "--model", "m", "--levels", "4", "--shard", "0/4",
		"--start-at", "9999-01-01T00:00:00Z", "--level-duration", "2s", "--out", filepath.Join(t.TempDir(), "far")}
	code, _, stderr := runCLI(t, context.Background(), far...)
	if code != ExitUsage || !strings.Contains(stderr, "more than --max-start-wait 1h0m0s") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("start in 9999: exit %d, stderr %q; want a one-line usage error naming --max-start-wait", code, stderr)
	}
	start := time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC)
	s := shardOptions{Index: 1, Count: 4, Start: start, LevelDuration: 2 * time.Minute, Grace: 20 * time.Second}
	got := s.waitText(start.Add(-4*time.Minute-30*time.Second), 3)
	want := "shard 1/4: waiting 4m30s for --start-at 2026-12-02T18:00:00Z; its 3 levels end by 2026-12-02T18:07:00Z (each level-duration 2m0s + grace 20s)"
	if got != want {
		t.Errorf("wait line\n got %q\nwant %q", got, want)
	}
}

// TestShardSplitTakesItsPart: shard i of N sends, as its request m, the
// prompt of the run's request m×N + i, and draws its part of every plan.
func TestShardSplitTakesItsPart(t *testing.T) {
	t.Parallel()
	s := shardOptions{Index: 1, Count: 4}
	for _, m := range []commandMode{closed.Mode{}, rate.Mode{}} {
		ld := &rate.Load{}
		cfg := sweep.Config{Load: ld, Prompt: func(seq int) client.Prompt { return client.Prompt{ID: seq} }}
		s.split(&cfg, m)
		for i, want := range []int{1, 5, 9, 13} {
			if got := cfg.Prompt(i).ID; got != want {
				t.Errorf("%s: shard 1/4's request %d sends prompt %d, want %d", m.Name(), i, got, want)
			}
		}
		// The rate mode's split is its arrivals'; the closed loop's is
		// only its workers' (beforeLevel).
		want := sweep.Part{Index: 1, Of: 4}
		if m.Name() == sweep.ClosedMode {
			want = sweep.Part{}
		}
		if ld.Spec.Part != want {
			t.Errorf("%s: shard 1/4 draws part %+v of the plans", m.Name(), ld.Spec.Part)
		}
	}
}

// A mode with no shard split (sessions: every shard would open the same
// conversations; a replay: every shard would send the whole trace) is
// refused in one line that names it, before any load.
func TestShardRefusesAModeWithNoSplit(t *testing.T) {
	t.Parallel()
	soon := time.Now().Add(10 * time.Minute).UTC().Format(time.RFC3339)
	for _, c := range []struct {
		mode string
		args []string
	}{
		{sweep.SessionsMode, []string{"--levels", "4", "--turns", "2"}},
		{sweep.ReplayMode, []string{"--trace", smallTrace(t), "--replay-speed", "1"}},
	} {
		args := append([]string{"sweep", "--url", "http://127.0.0.1:9/v1", "--model", "m", "--shard", "0/2", "--start-at", soon, "--level-duration", "2s"}, c.args...)
		code, _, stderr := runCLI(t, context.Background(), args...)
		want := "--shard: the " + c.mode + " mode cannot be split across shards"
		if code != ExitUsage || !strings.Contains(stderr, want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want a one-line usage error %q", c.mode, code, stderr, want)
		}
	}
}
