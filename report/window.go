package report

import (
	"iter"
	"math"
	"slices"
	"time"

	"github.com/toksweep/toksweep/client"
)

// steadyWindow finds the span in which every one of the c workers had a
// measured request in flight: from the latest first Start of any worker to
// the earliest last End. Requests canceled by an interruption are left out
// of the spans, so the window of a canceled level ends where the first
// worker's last whole request did, and no cut-short stream is inside it. If
// a worker has no such request, or the span is empty, the window falls back
// to [min Start, max End] and reports fallback. When no measured request
// finished at all (every one was cut short by an interruption), there is no
// window: [0, 0], and every aggregate figure is undefined.
func steadyWindow(measured []request, c int) (ws, we time.Duration, fallback bool) {
	if !slices.ContainsFunc(measured, finished) {
		return 0, 0, false
	}
	type span struct{ first, last time.Duration }
	workers := make(map[int]span)
	lo, hi := measured[0].start, measured[0].end
	for i := range measured {
		r := &measured[i]
		lo, hi = min(lo, r.start), max(hi, r.end)
		if r.class == client.Canceled {
			continue
		}
		sp, seen := workers[r.worker]
		if !seen {
			sp = span{r.start, r.end}
		}
		workers[r.worker] = span{min(sp.first, r.start), max(sp.last, r.end)}
	}
	ws, we = math.MinInt64, math.MaxInt64
	for _, sp := range workers {
		ws, we = max(ws, sp.first), min(we, sp.last)
	}
	if len(workers) < c || we <= ws {
		return lo, hi, true
	}
	return ws, we, false
}

// openWindow is the steady window of an open-loop level: from the first
// End (the server has been busy for a request's time) to the last Start
// (arrivals stop), over the requests not canceled by an interruption. If
// that span is empty, it falls back to [min Start, max End] and reports
// fallback; without a finished request there is no window.
func openWindow(measured []request) (ws, we time.Duration, fallback bool) {
	if !slices.ContainsFunc(measured, finished) {
		return 0, 0, false
	}
	lo, hi := measured[0].start, measured[0].end
	ws, we = math.MaxInt64, math.MinInt64
	for i := range measured {
		r := &measured[i]
		lo, hi = min(lo, r.start), max(hi, r.end)
		if r.class != client.Canceled {
			ws, we = min(ws, r.end), max(we, r.start)
		}
	}
	if we <= ws {
		return lo, hi, true
	}
	return ws, we, false
}

// finished reports whether r finished (was not canceled by an
// interruption or the drain).
func finished(r request) bool { return r.class != client.Canceled }

// window fills the steady-state window and the measured span (the first
// pass: requests' scalars only).
func (s *LevelStats) window(measured []request) {
	if s.Key().IsOpen() {
		s.WindowStart, s.WindowEnd, s.WindowFallback = openWindow(measured)
	} else {
		s.WindowStart, s.WindowEnd, s.WindowFallback = steadyWindow(measured, s.Concurrency)
	}
	s.MeasuredSpan = measuredSpan(measured)
}

// aggregate fills the figures measured over the steady-state window: the
// second pass over the level's records, which counts their chunks inside
// the window that window found.
func (s *LevelStats) aggregate(recs iter.Seq[*client.Record]) {
	ws, we := s.WindowStart, s.WindowEnd
	s.AggregateOutputTPS, s.AggregateTotalTPS = math.NaN(), math.NaN()
	s.RequestsPerS, s.InflightMean = math.NaN(), math.NaN()
	window := (we - ws).Seconds()
	if window <= 0 {
		return
	}
	in := func(t time.Duration) bool { return t >= ws && t <= we }
	var output, prompt, inflight, requests float64
	for r := range recs {
		if r.Warmup {
			continue
		}
		inflight += max(0, min(r.End, we)-max(r.Start, ws)).Seconds()
		if !r.OK() {
			continue // a failed request's tokens are not delivered output
		}
		chunks := 0
		for _, at := range r.ChunkAt {
			if in(r.Start + at) {
				chunks++
			}
		}
		output += tokenWeight(r) * float64(chunks)
		if len(r.ChunkAt) > 0 && in(r.FirstToken) {
			prompt += float64(r.PromptTokens)
		}
		requests += requestShare(r, chunks, in)
	}
	s.AggregateOutputTPS = output / window
	s.AggregateTotalTPS = (output + prompt) / window
	s.RequestsPerS = requests / window
	s.InflightMean = inflight / window
}

// measuredSpan is max End − min Start over the measured requests.
func measuredSpan(measured []request) time.Duration {
	if len(measured) == 0 {
		return 0
	}
	lo, hi := measured[0].start, measured[0].end
	for i := range measured {
		lo, hi = min(lo, measured[i].start), max(hi, measured[i].end)
	}
	return hi - lo
}

// requestShare is r's share of requests_per_s: the fraction of its
// token-carrying chunks that arrived in the window (chunks of them did).
// Each request counts in proportion to its output delivered in the window,
// as the token rate counts its tokens, so with fixed-length outputs
// requests_per_s × tokens per request = aggregate_output_tps, however the
// workers' rounds and queueing line up with the window's edges. A request
// without chunks counts whole when it ends in the window.
func requestShare(r *client.Record, chunks int, in func(time.Duration) bool) float64 {
	if k := len(r.ChunkAt); k > 0 {
		return float64(chunks) / float64(k)
	}
	if in(r.End) {
		return 1
	}
	return 0
}
