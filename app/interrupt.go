package app

import (
	"sync/atomic"
	"time"
)

// PromptExitWait is how long main lets a command run on after the first
// interrupt before it exits with ExitInterrupted by itself (once the file
// being written is whole: SettleFiles). Commands that read or compute
// without a context (report, merge, compare, plan, a sweep still loading
// its dataset from a FIFO) would otherwise go on, and Kubernetes sends
// SIGKILL after its grace period. A sweep writing its run is the exception:
// it stops its requests on the context and writes the partial level itself
// (WritesOnInterrupt).
const PromptExitWait = time.Second

// runWriting is set once a sweep has begun its run directory.
var runWriting atomic.Bool

// WritesOnInterrupt reports whether the command in progress finishes by
// itself on an interrupt, writing what it measured: a sweep that has begun
// its run directory. main waits for it; for anything else it exits after
// PromptExitWait.
func WritesOnInterrupt() bool { return runWriting.Load() }
