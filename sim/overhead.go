package sim

import (
	"context"
	"time"
)

// overheadWait waits out a request's own overhead before it joins the
// queue (Config.RequestOverhead, scaled by TimeScale), and reports false
// when the client left meanwhile. others is the requests the server
// holds beside it.
func (s *Server) overheadWait(ctx context.Context, promptTokens, others int) bool {
	d := s.cfg.overhead(promptTokens, others)
	if d <= 0 {
		return true
	}
	t := time.NewTimer(time.Duration(float64(d) * s.cfg.TimeScale))
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// overhead is a request's own time before it queues: the fixed and
// per-prompt-token parts, each growing by its per-sequence part for every
// other request held, of which at most MaxNumSeqs−1 count (the batch it
// joins).
func (c Config) overhead(promptTokens, others int) time.Duration {
	b := time.Duration(min(max(others, 0), c.MaxNumSeqs-1))
	p := time.Duration(promptTokens)
	return c.RequestOverhead + p*c.RequestOverheadPerToken + b*(c.RequestOverheadPerSeq+p*c.RequestOverheadPerTokenPerSeq)
}
