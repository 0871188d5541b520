package app

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestShortLevelsSampleTheServer: levels of 8 short requests (about 0.4 s
// at C=1 and 0.14 s at C=4 on the simulator's clock; a busy machine only
// makes them longer) each sample the server's gauges at least twice, the
// first sample 50 ms in and one as the level's load ends, so their means
// are filled; the level line says how few samples a mean rests on, and the
// start-up line describes the schedule.
func TestShortLevelsSampleTheServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--sim", "--levels", "1,4", "--requests", "8", "--max-tokens", "16", "--out", dir)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "sampled in each level from 50ms in (gaps doubling up to 1s) and at its load's end") {
		t.Errorf("the start-up line does not describe the schedule:\n%s", stderr)
	}
	rows := readLevels(t, dir)
	if len(rows) != 2 {
		t.Fatalf("%d levels, want 2", len(rows))
	}
	lines := serverLines(stderr)
	if len(lines) != 2 {
		t.Fatalf("%d server lines, want 2:\n%s", len(lines), stderr)
	}
	for i, row := range rows {
		n, err := strconv.Atoi(row["server_scrapes"])
		if err != nil || n < 2 {
			t.Errorf("C=%s: server_scrapes %q, want ≥ 2", row["concurrency"], row["server_scrapes"])
		}
		for _, col := range []string{"server_running_mean", "server_waiting_mean", "server_kv_usage_mean"} {
			if row[col] == "" {
				t.Errorf("C=%s: %s empty", row["concurrency"], col)
			}
		}
		// n ≥ 2 (above): the caveat is in the plural.
		caveat := fmt.Sprintf(" (%d samples),", n)
		if few := n < fewGaugeSamples; strings.Contains(lines[i], caveat) != few {
			t.Errorf("C=%s, %d samples: caveat %q on the server line: %v, want %v: %s", row["concurrency"], n, caveat, !few, few, lines[i])
		}
	}
}

// serverLines are stderr's "  server: …" lines, in order.
func serverLines(stderr string) []string {
	var out []string
	for l := range strings.SplitSeq(stderr, "\n") {
		if strings.HasPrefix(l, "  server: ") {
			out = append(out, l)
		}
	}
	return out
}

func TestFewSamples(t *testing.T) {
	for n, want := range map[int]string{0: " (no sample)", 1: " (1 sample)", 4: " (4 samples)", fewGaugeSamples: "", 12: ""} {
		if got := fewSamples(n); got != want {
			t.Errorf("fewSamples(%d) = %q, want %q", n, got, want)
		}
	}
}
