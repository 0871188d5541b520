package progress

import (
	"math"
	"time"
)

// ShareDone is the share done of the sweep's runs (planned level runs): the
// finished runs, plus the running one's share (of its requests, tokens or
// --duration, as the live line estimates it). NaN when the runs are not
// known ahead (an auto search).
func (p *Line) ShareDone(runs int) float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if runs == 0 {
		return math.NaN()
	}
	if p.run == 0 {
		return 0
	}
	share := 0.0
	if elapsed := time.Since(p.started); elapsed > 0 {
		if left, ok := p.levelLeft(elapsed, p.streamed.Load()); ok {
			share = elapsed.Seconds() / (elapsed + left).Seconds()
		}
	}
	return min((float64(p.run-1)+share)/float64(runs), 1)
}

// Status is the live line as it would be drawn now.
func (p *Line) Status() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.liveLine()
}

// PerRequest is the time of one request that the re-estimates use now: the
// assumed one (mode.Timing.AssumedPerRequest) until a level measures one.
func (p *Line) PerRequest() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.perReq
}
