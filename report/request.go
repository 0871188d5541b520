package report

import (
	"iter"
	"math"
	"time"

	"github.com/toksweep/toksweep/client"
)

// RequestTTFT is one request's time to first token, FirstToken − Origin
// (Start in a closed loop, the scheduled instant in an open loop), or
// NoSample when it has no token-carrying chunk. Summarize takes TTFT
// percentiles over it; compare bootstraps it. The caller picks the records
// (Summarize uses successful measured ones).
func RequestTTFT(r *client.Record) time.Duration {
	if len(r.ChunkAt) == 0 {
		return NoSample
	}
	return r.FirstToken - r.Origin()
}

// RequestDecodeTPS is one request's decode rate, (U − w) / (LastToken −
// FirstToken) in tokens per second, or NaN when it is undefined (fewer than
// two token-carrying chunks, or no time between the first and the last).
// docs/metrics.md defines it; this is its one implementation.
func RequestDecodeTPS(r *client.Record) float64 {
	if len(r.ChunkAt) < 2 || r.LastToken <= r.FirstToken {
		return math.NaN()
	}
	u := float64(r.OutputTokens())
	return (u - tokenWeight(r)) / (r.LastToken - r.FirstToken).Seconds()
}

// RequestE2ETPS is one request's end-to-end rate, U / (End − Origin) in
// tokens per second, or NaN when End is not after Origin.
func RequestE2ETPS(r *client.Record) float64 {
	if r.End <= r.Origin() {
		return math.NaN()
	}
	return float64(r.OutputTokens()) / (r.End - r.Origin()).Seconds()
}

// RequestTPOT is one request's TPOT, vLLM's (End − FirstToken) / (U − 1),
// or NoSample when U ≤ 1 or it has no token-carrying chunk. Summarize's
// tpot figures and the live histogram take it.
func RequestTPOT(r *client.Record) time.Duration {
	u := r.OutputTokens()
	if u > 1 && len(r.ChunkAt) > 0 && r.End >= r.FirstToken {
		return (r.End - r.FirstToken) / time.Duration(u-1)
	}
	return NoSample
}

// RequestITL yields one request's per-token gaps: each gap between
// consecutive token-carrying chunks over w = U/K, the tokens a chunk is
// taken to carry (Summarize weights each by w).
func RequestITL(r *client.Record) iter.Seq[time.Duration] {
	return func(yield func(time.Duration) bool) {
		w := tokenWeight(r)
		if w <= 0 {
			return
		}
		for j := 1; j < len(r.ChunkAt); j++ {
			if !yield(time.Duration(float64(r.ChunkAt[j]-r.ChunkAt[j-1]) / w)) {
				return
			}
		}
	}
}
