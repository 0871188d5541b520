//go:build unix

package app

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sim"
	"github.com/toksweep/toksweep/sim/simtest"
)

// TestShardedRunMergesExactly runs 4 shards at C=16 against one simulator,
// merges them, and checks the merge against the pooled shard records and
// against a single process at C=16 on the same simulator.
func TestShardedRunMergesExactly(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 4 shards and a single sweep against the simulator")
	}
	cfg, err := sim.Preset("default")
	if err != nil {
		t.Fatal(err)
	}
	srv := simtest.NewServer(cfg)
	defer srv.Close()
	bin := buildBinary(t, t.TempDir())
	var lastErr string
	for attempt := range 2 { // a busy box may skew one attempt's rates
		base := t.TempDir()
		merged, shards := runShards(t, bin, srv.URL+"/v1", base)
		if t.Failed() {
			return
		}
		if attempt == 0 {
			checkMergeRefusals(t, base, shards)
			checkPooledPercentiles(t, merged, shards)
		}
		single := filepath.Join(base, "single")
		if code, _, stderr := runCLI(t, context.Background(), "sweep", "--url", srv.URL+"/v1", "--levels", "16",
			"--duration", "3s", "--max-tokens", "64", "--out", single); code != ExitOK {
			t.Fatalf("single run: exit %d: %s", code, stderr)
		}
		m, s := readLevels(t, merged)[0], readLevels(t, single)[0]
		lastErr = ""
		for _, col := range []string{"aggregate_output_tps", "decode_tps_p50"} {
			mv, sv := num(t, m, col), num(t, s, col)
			t.Logf("%s: merged %.1f, single %.1f (%+.1f%%)", col, mv, sv, 100*(mv/sv-1))
			if math.Abs(mv/sv-1) > 0.25 {
				lastErr += fmt.Sprintf("%s: merged %.1f vs single %.1f; ", col, mv, sv)
			}
		}
		if lastErr == "" {
			return
		}
	}
	t.Errorf("the merged run differs from a single run by over 25%%: %s", lastErr)
}

// runShards runs 4 shard processes of one run at C=16 and merges them.
func runShards(t *testing.T, bin, url, base string) (merged string, shards []string) {
	t.Helper()
	start := time.Now().Add(5 * time.Second).UTC().Format(time.RFC3339Nano)
	var wg sync.WaitGroup
	for i := range 4 {
		dir := filepath.Join(base, fmt.Sprintf("shard%d", i))
		shards = append(shards, dir)
		wg.Go(func() {
			out, err := exec.Command(bin, "sweep", "--url", url, "--levels", "16", "--max-tokens", "64",
				"--shard", fmt.Sprintf("%d/4", i), "--start-at", start, "--level-duration", "3s", "--grace", "2s", "--out", dir).CombinedOutput()
			if err != nil {
				t.Errorf("shard %d: %v: %s", i, err, out)
			}
		})
	}
	wg.Wait()
	merged = filepath.Join(base, "merged")
	// This box's clock is not NTP-synchronised: --allow-skew (the shards
	// share one clock here anyway).
	if code, _, stderr := runCLI(t, context.Background(), append([]string{"merge", "--allow-skew", merged}, shards...)...); code != ExitOK {
		t.Errorf("merge: exit %d: %s", code, stderr)
	}
	return merged, shards
}

// checkMergeRefusals: 3 of 4 shards, or one twice, are not a run.
func checkMergeRefusals(t *testing.T, base string, shards []string) {
	t.Helper()
	for _, set := range [][]string{shards[:3], {shards[0], shards[1], shards[2], shards[2]}} {
		out := filepath.Join(base, "refused")
		code, _, stderr := runCLI(t, context.Background(), append([]string{"merge", "--allow-skew", out}, set...)...)
		if code != ExitFailure || !strings.Contains(stderr, "merge refused") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("merging %d dirs: exit %d, stderr %q: want a one-line refusal", len(set), code, stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("a refused merge left %s behind", out)
		}
	}
}

// checkPooledPercentiles recomputes, from the shards' requests.jsonl, the
// request counts and nearest-rank percentiles of the pooled records, and
// requires the merged run's figures to be exactly these.
func checkPooledPercentiles(t *testing.T, merged string, shards []string) {
	t.Helper()
	var ttft, e2el, decode []float64
	okCount, failed := 0, 0
	for _, dir := range shards {
		f, err := os.Open(filepath.Join(dir, "requests.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := report.ReadRecords(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for i := range recs {
			r := &recs[i]
			switch {
			case r.Warmup:
			case r.ErrorClass != client.OK:
				failed++
			default:
				okCount++
				e2el = append(e2el, float64(r.End-r.Start))
				if len(r.ChunkAt) > 0 {
					ttft = append(ttft, float64(r.FirstToken-r.Start))
				}
				if d := report.RequestDecodeTPS(r); !math.IsNaN(d) {
					decode = append(decode, d)
				}
			}
		}
	}
	run, err := report.ReadRunDir(merged)
	if err != nil {
		t.Fatal(err)
	}
	stats := run.Stats()
	if len(stats) != 1 {
		t.Fatalf("merged run has %d levels, want 1", len(stats))
	}
	s := stats[0]
	if s.Concurrency != 16 || s.RequestsOK != okCount || s.RequestsFailed != failed {
		t.Errorf("merged C=%d, %d ok, %d failed; the shards: C=16, %d ok, %d failed", s.Concurrency, s.RequestsOK, s.RequestsFailed, okCount, failed)
	}
	nearest := func(xs []float64, p float64) float64 {
		xs = slices.Sorted(slices.Values(xs))
		return xs[int(math.Ceil(p/100*float64(len(xs))))-1]
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"TTFT p50", float64(s.TTFTP50), nearest(ttft, 50)},
		{"TTFT p99", float64(s.TTFTP99), nearest(ttft, 99)},
		{"e2e latency p90", float64(s.E2ELatencyP90), nearest(e2el, 90)},
		{"decode p50", s.DecodeTPSP50, nearest(decode, 50)},
		{"decode p10", s.DecodeTPSP10, nearest(decode, 10)},
	} {
		if c.got != c.want {
			t.Errorf("merged %s = %v, the pooled shard records give %v", c.name, c.got, c.want)
		}
	}
	if s.WindowFallback || !(s.InflightMean > 15) {
		t.Errorf("merged steady window: fallback %v, in flight %.2f: want all 16 workers of the 4 shards in flight", s.WindowFallback, s.InflightMean)
	}
}
