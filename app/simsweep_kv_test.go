package app

import (
	"context"
	"testing"
)

// sweep --sim passes --sim-no-prefix-caching to the simulator: the fixed
// default prompt (36 tokens, 2 full blocks) repeats, so with the cache on
// the server reports hits, 32 of 36 tokens for every request but the
// first; with it off, none.
func TestSweepSimPrefixCachingFlag(t *testing.T) {
	t.Parallel()
	for _, off := range []bool{false, true} {
		out := t.TempDir()
		args := []string{"sweep", "--sim", "--sim-preset", "fast", "--levels", "1", "--requests", "8", "--max-tokens", "4", "--out", out}
		if off {
			args = append(args, "--sim-no-prefix-caching")
		}
		code, _, stderr := runCLI(t, context.Background(), args...)
		if code != ExitOK {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		rate := readLevels(t, out)[0]["server_prefix_hit_rate"]
		t.Logf("no-prefix-caching %v: server_prefix_hit_rate %q", off, rate)
		switch {
		case off && rate != "": // no queries: no rate
			t.Errorf("--sim-no-prefix-caching: server_prefix_hit_rate %q, want none", rate)
		case !off && (rate == "" || num(t, readLevels(t, out)[0], "server_prefix_hit_rate") < 0.5):
			t.Errorf("prefix caching on: server_prefix_hit_rate %q, want most of 32/36 = 0.889", rate)
		}
	}
}
