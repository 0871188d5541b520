package app

import "github.com/urfave/cli/v2"

// simOnlyFlags are the sweep flags that configure the built-in simulator:
// with --url they would be silently ignored, so they are refused there.
var simOnlyFlags = []string{"sim-preset"}

// givenFlags is which of names were given on the command line. It is the
// only place the check below asks the cli package.
func givenFlags(c *cli.Context, names []string) []string {
	var given []string
	for _, n := range names {
		if c.IsSet(n) {
			given = append(given, n)
		}
	}
	return given
}

// checkSimOnly refuses simulator flags (given: the ones on the command line)
// on a sweep that does not start the simulator.
func checkSimOnly(sim bool, given []string) error {
	if sim || len(given) == 0 {
		return nil
	}
	return usagef("--%s applies only to --sim (the built-in simulator); with --url it would be ignored: drop it, or use --sim instead of --url", given[0])
}
