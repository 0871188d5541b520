package app

import (
	"context"
	"testing"
)

// sweep --sim passes --sim-no-prefix-caching to the simulator. The default
// prompt carries a unique first line per request, so even with the cache
// on nothing after the first line is shared and the hit rate stays near
// zero; prompts that share a prefix on purpose (--shared-prefix-tokens 48
// of --input-tokens 64, 3 of 4 blocks) hit with the cache on, and never
// with it off.
func TestSweepSimPrefixCachingFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		args   []string
		off    bool
		lo, hi float64 // the hit rate's range; lo < 0: no rate at all
	}{
		{"default prompt, cache on", nil, false, 0, 0.2},
		{"shared prefix, cache on", []string{"--input-tokens", "64", "--shared-prefix-tokens", "48"}, false, 0.5, 1},
		{"shared prefix, cache off", []string{"--input-tokens", "64", "--shared-prefix-tokens", "48"}, true, -1, -1},
	} {
		out := t.TempDir()
		args := append([]string{"sweep", "--sim", "--sim-preset", "fast", "--levels", "1", "--requests", "8", "--max-tokens", "4", "--out", out}, tc.args...)
		if tc.off {
			args = append(args, "--sim-no-prefix-caching")
		}
		code, _, stderr := runCLI(t, context.Background(), args...)
		if code != ExitOK {
			t.Fatalf("%s: exit %d\n%s", tc.name, code, stderr)
		}
		row := readLevels(t, out)[0]
		rate := row["server_prefix_hit_rate"]
		t.Logf("%s: server_prefix_hit_rate %q", tc.name, rate)
		switch {
		case tc.lo < 0 && rate != "": // no queries: no rate
			t.Errorf("%s: server_prefix_hit_rate %q, want none", tc.name, rate)
		case tc.lo >= 0 && (rate == "" || num(t, row, "server_prefix_hit_rate") < tc.lo || num(t, row, "server_prefix_hit_rate") > tc.hi):
			t.Errorf("%s: server_prefix_hit_rate %q, want %.1f to %.1f", tc.name, rate, tc.lo, tc.hi)
		}
	}
}
