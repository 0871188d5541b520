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
// -parallel, it lets 8 parallel tests run at once rather than GOMAXPROCS
// (2 on CI): the parallel tests here mostly wait on sleeps, levels and
// servers, not on the CPU.
func TestMain(m *testing.M) {
	flag.Parse()
	parallelSet := false
	flag.Visit(func(f *flag.Flag) { parallelSet = parallelSet || f.Name == "test.parallel" })
	if !parallelSet {
		_ = flag.Set("test.parallel", "8")
	}
	code := m.Run()
	if binaries.dir != "" {
		os.RemoveAll(binaries.dir)
	}
	os.Exit(code)
}
