package app

import (
	"context"
	"fmt"

	"github.com/toksweep/toksweep/sweep"
)

// warmWarner passes the sweep's connection warm-up through to the Doer it
// wraps, and says in one warning line when it fails: a warm-up that hangs
// or fails (it is bounded by the connect timeout) must neither stall the
// level nor pass in silence, since the level's first requests then include
// connection setup in their time to first token.
type warmWarner struct {
	sweep.Doer
	warn func(line string)
}

var _ sweep.Warmer = warmWarner{}

// WarmConns implements sweep.Warmer.
func (w warmWarner) WarmConns(ctx context.Context, n int) error {
	wm, ok := w.Doer.(sweep.Warmer)
	if !ok {
		return nil
	}
	err := wm.WarmConns(ctx, n)
	if err != nil && ctx.Err() == nil { // an interrupted or aborted run says so itself
		w.warn(fmt.Sprintf("toksweep: warning: C=%d: %s; the level starts anyway, and its first requests may include connection setup",
			n, oneLine(err.Error())))
	}
	return err
}
