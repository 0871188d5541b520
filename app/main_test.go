package app

import (
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

// TestMain removes the binaries the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if binaries.dir != "" {
		os.RemoveAll(binaries.dir)
	}
	os.Exit(code)
}
