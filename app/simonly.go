package app

// simOnlyGiven is which of the sweep flags that configure the built-in
// simulator were given: with --url they would be silently ignored, so they
// are refused there.
func (f *sweepFlagValues) simOnlyGiven() []string {
	var given []string
	for _, g := range []struct {
		name string
		set  bool
	}{{"sim-preset", f.SimPresetSet}, {"sim-no-prefix-caching", f.SimNoPrefixSet}, {"sim-model", f.SimModel != ""}, {"sim-adapter", len(f.SimAdapters) > 0}, {"sim-cliff", f.SimCliff != ""}, {"allow-extrapolation", f.AllowExtrapolation}} {
		if g.set {
			given = append(given, g.name)
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
