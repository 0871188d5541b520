package app

import "fmt"

// fdMargin is the descriptors a sweep holds besides its streams: stdio,
// the run directory's files, the metrics scrape, a few spare connections
// the pool opens while others close, the Go runtime's own.
const fdMargin = 64

// maxConcurrency is the highest number of streams the sweep will hold open
// (the chosen mode's streams; 0 when it is not known before the sweep).
func (o *options) maxConcurrency() int {
	return o.mode().Streams(&o.Line)
}

// fdNeed is the descriptors a sweep at concurrency c needs: one socket per
// stream, twice that when the simulator runs in the same process (its end
// of each connection), plus fdMargin.
func fdNeed(c int, sim bool) uint64 {
	n := uint64(c)
	if sim {
		n *= 2
	}
	return n + fdMargin
}

// checkFDs refuses a concurrency the open-file limit cannot hold, in one
// line that names the limit and the fix, instead of a flood of "too many
// open files" connect errors in the middle of a level. limit 0 means
// unknown (not a unix system): nothing is checked.
func checkFDs(c int, sim bool, limit uint64) error {
	need := fdNeed(c, sim)
	if limit == 0 || need <= limit {
		return nil
	}
	return fmt.Errorf("concurrency %d needs about %d open files but the limit is %d (RLIMIT_NOFILE, already raised to the hard limit): raise it with 'ulimit -n %d' (or LimitNOFILE= for a service) or lower the levels", c, need, limit, need)
}

// fdLimitCheck raises the open-file limit to its hard limit and checks that
// the sweep's highest concurrency fits in it.
func (o *options) fdLimitCheck() error {
	return checkFDs(o.maxConcurrency(), o.Sim, raiseNoFile())
}
