package app

import (
	"strings"
	"testing"

	"github.com/toksweep/toksweep/mode/closed"
)

func TestCheckFDs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		c     int
		sim   bool
		limit uint64
		ok    bool
	}{
		{c: 1000, limit: 1000 + fdMargin, ok: true},
		{c: 1000, limit: 1000 + fdMargin - 1},
		{c: 1000, sim: true, limit: 1000 + fdMargin}, // the simulator's ends count too
		{c: 1000, sim: true, limit: 2000 + fdMargin, ok: true},
		{c: 10000, limit: 1024},
		{c: 10000, limit: 0, ok: true}, // unknown limit: nothing to check
		{c: 0, limit: fdMargin, ok: true},
	} {
		err := checkFDs(tc.c, tc.sim, tc.limit)
		if (err == nil) != tc.ok {
			t.Errorf("checkFDs(%d, %v, %d) = %v, want ok %v", tc.c, tc.sim, tc.limit, err, tc.ok)
			continue
		}
		if err != nil {
			msg := err.Error()
			need := fdNeed(tc.c, tc.sim)
			for _, want := range []string{"ulimit -n", "RLIMIT_NOFILE", itoa(need), itoa(tc.limit)} {
				if !strings.Contains(msg, want) {
					t.Errorf("checkFDs(%d, %v, %d) = %q, missing %q", tc.c, tc.sim, tc.limit, msg, want)
				}
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("not one line: %q", msg)
			}
		}
	}
}

func itoa(n uint64) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		if n /= 10; n == 0 {
			return string(b)
		}
	}
}

func TestMaxConcurrency(t *testing.T) {
	t.Parallel()
	if got := withLevels(&options{}, 4, 64, 16).maxConcurrency(); got != 64 {
		t.Errorf("levels 4,64,16: %d, want 64", got)
	}
	auto := withLevels(&options{}, 1)
	closed.Of(&auto.Line).Auto, closed.Of(&auto.Line).AutoMax = true, 512
	if got := auto.maxConcurrency(); got != 512 {
		t.Errorf("auto up to 512: %d, want 512", got)
	}
}
