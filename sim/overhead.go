package sim

import (
	"context"
	"time"
)

// overheadWait waits out a request's own overhead before it joins the
// queue (Config.RequestOverhead, scaled by TimeScale), and reports false
// when the client left meanwhile.
func (s *Server) overheadWait(ctx context.Context, promptTokens int) bool {
	d := s.cfg.RequestOverhead + time.Duration(promptTokens)*s.cfg.RequestOverheadPerToken
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
