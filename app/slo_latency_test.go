package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSLOLatencyFlags: a bad --slo-tpot-p99 or --slo-e2e-p95 is a
// one-line usage error that leaves no directory behind.
func TestSLOLatencyFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ flag, value, want string }{
		{"--slo-tpot-p99", "0s", "invalid --slo-tpot-p99 0s: want a positive duration such as 50ms"},
		{"--slo-e2e-p95", "-1s", "invalid --slo-e2e-p95 -1s: want a positive duration such as 30s"},
		{"--slo-e2e-p95", "soon", `invalid --slo-e2e-p95 "soon": want a duration such as 500ms, 90s or 5m`},
	} {
		t.Run(tc.flag+tc.value, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "run")
			code, _, stderr := runCLI(t, context.Background(), "sweep", "--sim", tc.flag, tc.value, "--out", out)
			if code != ExitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q: want a one-line usage error with %q", code, stderr, tc.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s was made: %v", out, err)
			}
		})
	}
}
