package app

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestSweepMatchesClosedForm runs the real CLI against a paced server whose
// figures are known in closed form (TTFT 200 ms, 50 tok/s) at levels 1 and 4
// and checks levels.csv: the acceptance test of the core loop.
func TestSweepMatchesClosedForm(t *testing.T) {
	p := startPaced(t, 200*time.Millisecond, 20*time.Millisecond, 20)
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), "sweep", "--url", p.url(), "--levels", "1,4",
		"--requests", "3", "--max-tokens", "20", "--out", out)
	if code != ExitOK {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
	}
	rows := readLevels(t, out)
	if len(rows) != 2 {
		t.Fatalf("levels.csv has %d rows, want 2", len(rows))
	}
	for _, row := range rows {
		c := num(t, row, "concurrency")
		checks := []struct {
			col       string
			want, tol float64
		}{
			{"ttft_p50_ms", 200, 0.05},
			{"ttft_p99_ms", 200, 0.05},
			{"decode_tps_p50", p.decodeTPS(), 0.03},
			{"decode_tps_p10", p.decodeTPS(), 0.03},
			{"decode_tps_mean", p.decodeTPS(), 0.03},
			{"e2e_tps_p50", p.e2eTPS(), 0.03},
			{"e2e_tps_mean", p.e2eTPS(), 0.03},
			{"itl_p50_ms", 20, 0.05},
			{"aggregate_output_tps", c * p.e2eTPS(), 0.06},
		}
		for _, ck := range checks {
			if got := num(t, row, ck.col); !within(got, ck.want, ck.tol) {
				t.Errorf("C=%v %s = %.3f, want %.3f ±%.0f%%", c, ck.col, got, ck.want, ck.tol*100)
			}
		}
		if row["token_source"] != "usage" || row["requests_failed"] != "0" || row["end_reason"] != "completed" {
			t.Errorf("C=%v token_source=%s failed=%s end=%s", c, row["token_source"], row["requests_failed"], row["end_reason"])
		}
	}
	for _, want := range []string{"Single stream", "Aggregate"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks the %q table:\n%s", want, stdout)
		}
	}
}
