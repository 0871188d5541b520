package app

import (
	"flag"
	"os"
	"sync"
	"testing"
)

// binaries are the toksweep binaries buildBinary built, by build tags.
var binaries struct {
	sync.Mutex
	dir   string
	built map[string]builtBinary
}

type builtBinary struct {
	path string
	err  error // the failed build's output
}

// TestMain removes the binaries the tests built. Unless the user chose
// -parallel, it lets 12 parallel tests run at once rather than GOMAXPROCS
// (2 on CI): the parallel tests here mostly wait on sleeps, levels and
// servers, not on the CPU. (At 8, TestRatesAutoAgainstSim, 20 s, waited
// 40 s for a slot behind the sleeping ones and ended the package at 60 s;
// at 16 its searches failed: docs/development.md.)
func TestMain(m *testing.M) {
	flag.Parse()
	parallelSet := false
	flag.Visit(func(f *flag.Flag) { parallelSet = parallelSet || f.Name == "test.parallel" })
	if !parallelSet {
		_ = flag.Set("test.parallel", "12")
	}
	code := m.Run()
	if binaries.dir != "" {
		os.RemoveAll(binaries.dir)
	}
	os.Exit(code)
}
