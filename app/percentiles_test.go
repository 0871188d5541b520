package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPercentilesFlagErrors(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"0", "101", "50,x", "NaN"} {
		code, _, stderr := runCLI(t, context.Background(), "sweep", "--sim", "--percentiles", bad, "--out", filepath.Join(t.TempDir(), "r"))
		if code != ExitUsage || !strings.Contains(stderr, "invalid --percentiles") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("--percentiles %s: exit %d, stderr %q", bad, code, stderr)
		}
	}
}

// --percentiles adds its columns to levels.csv and summary.json, records the
// list in summary.json, and `report` re-renders both files byte for byte.
func TestPercentilesColumnsAndReRender(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--sim", "--sim-preset", "fast", "--levels", "1,2",
		"--requests", "10", "--max-tokens", "16", "--percentiles", "99.9,50,90", "--out", out, "--metrics-url", "off")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	rows := readLevels(t, out)
	for _, col := range []string{"ttft_p90_ms", "ttft_p999_ms", "e2e_latency_p999_ms", "tpot_p999_ms", "itl_p999_ms", "decode_tps_p999"} {
		if v := num(t, rows[0], col); !(v > 0) {
			t.Errorf("%s = %v", col, v)
		}
	}
	// 10 requests: p99.9 is the max, p90 the 9th, so p90 ≤ p99.9 and p99.9 ≥ p99.
	if num(t, rows[0], "ttft_p90_ms") > num(t, rows[0], "ttft_p999_ms") || num(t, rows[0], "ttft_p999_ms") != num(t, rows[0], "ttft_p99_ms") {
		t.Errorf("ttft p90 %s p99 %s p99.9 %s", rows[0]["ttft_p90_ms"], rows[0]["ttft_p99_ms"], rows[0]["ttft_p999_ms"])
	}
	sum1, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if !strings.Contains(string(sum1), `"percentiles": [`) || !strings.Contains(string(sum1), `"ttft_p999_ms"`) {
		t.Errorf("summary.json lacks the percentiles:\n%s", sum1)
	}
	checkRerendered(t, out)
}
