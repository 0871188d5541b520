//go:build toksweep_testhooks

package atomicfile

import (
	"os"
	"time"
)

// A binary built with -tags toksweep_testhooks pauses in the middle of
// every Append for $TOKSWEEP_TEST_MIDWRITE_PAUSE (a duration), so that the
// signal tests can interrupt a write in progress.
func init() {
	if d, err := time.ParseDuration(os.Getenv("TOKSWEEP_TEST_MIDWRITE_PAUSE")); err == nil && d > 0 {
		midWrite = func() { time.Sleep(d) }
	}
}
