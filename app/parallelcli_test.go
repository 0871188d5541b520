package app

import (
	"context"
	"strings"
	"sync"
	"testing"
)

// TestAppsRunAtOnce: in-process command lines may run at once (the
// package's parallel tests rely on it). urfave/cli applies its shared help
// and version flags and appends its shared help subcommand on every run;
// New and init give each run its own, so -race finds nothing here, and
// help, the help subcommand and the version still print what they did.
func TestAppsRunAtOnce(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--help"}, "GLOBAL OPTIONS:\n   --help, -h     show help\n   --version, -v  print the version\n"},
		{[]string{"--version"}, "toksweep version "},
		{[]string{"sweep", "--help"}, "   --help, -h  show help\n"},
		{[]string{"sweep", "help"}, "NAME:\n   toksweep sweep - "},
		{[]string{"report", "h"}, "NAME:\n   toksweep report - "},
	}
	var wg sync.WaitGroup
	for range 4 {
		for _, tc := range cases {
			wg.Go(func() {
				code, stdout, stderr := runCLI(t, context.Background(), tc.args...)
				if code != ExitOK || !strings.Contains(stdout, tc.want) || stderr != "" {
					t.Errorf("%v: exit %d, stderr %q, stdout lacks %q:\n%s", tc.args, code, stderr, tc.want, stdout)
				}
			})
		}
	}
	wg.Wait()
}
