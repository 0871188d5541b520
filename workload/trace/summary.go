package trace

import (
	"slices"
	"time"

	"github.com/toksweep/toksweep/internal/pct"
)

// Summary is what a trace asks of a server, before any replay: the trace
// summary of the console, summary.json and report.html. docs/metrics.md
// ("Trace replay") defines each figure.
type Summary struct {
	Format    Format        `json:"format"`
	BlockSize int           `json:"block_size,omitempty"`
	Requests  int           `json:"requests"`
	Skipped   int           `json:"skipped"`
	Span      time.Duration `json:"span_ns"`
	// MeanRate is (Requests − 1) / Span (requests per second), the rate
	// offered_rps measures a level by; 0 when Span is 0.
	MeanRate float64 `json:"mean_rate"`
	// PeakRate1s is the most requests whose instants fall in any one
	// second [t, t+1s), t a request's instant.
	PeakRate1s int          `json:"peak_rate_1s"`
	Input      Distribution `json:"input"`
	Output     Distribution `json:"output"`
	// PrefixReuse is the best possible prefix-hit rate: the share of the
	// prompt tokens that sit in blocks an earlier request already sent, as
	// a prefix cache counts them (from the first block, up to the first
	// block not sent before in full). 0 for formats without hash ids.
	PrefixReuse float64 `json:"prefix_reuse"`
	HasHashes   bool    `json:"has_hashes"`
	// Sessions is the number of conversations with more than one turn;
	// Turns the requests in them (Bailian; 0 elsewhere), MaxTurns the
	// longest.
	Sessions int `json:"sessions"`
	Turns    int `json:"turns"`
	MaxTurns int `json:"max_turns"`
}

// Distribution is a length distribution, in tokens: nearest-rank
// percentiles (internal/pct), the mean and the extremes.
type Distribution struct {
	Mean float64 `json:"mean"`
	Min  int     `json:"min"`
	P50  int     `json:"p50"`
	P90  int     `json:"p90"`
	P99  int     `json:"p99"`
	Max  int     `json:"max"`
}

func distribution(v []int) Distribution {
	if len(v) == 0 {
		return Distribution{}
	}
	s := slices.Sorted(slices.Values(v))
	sum := 0
	for _, x := range s {
		sum += x
	}
	at := func(p float64) int { return s[pct.Rank(len(s), p)-1] }
	return Distribution{Mean: float64(sum) / float64(len(s)), Min: s[0], P50: at(50), P90: at(90), P99: at(99), Max: s[len(s)-1]}
}

// Summarize computes the trace's summary.
func Summarize(t *Trace) Summary {
	rs := t.Requests
	s := Summary{Format: t.Format, BlockSize: t.BlockSize, Requests: len(rs), Skipped: len(t.Skipped)}
	if len(rs) == 0 {
		return s
	}
	s.Span = rs[len(rs)-1].At - rs[0].At
	if s.Span > 0 {
		s.MeanRate = float64(len(rs)-1) / s.Span.Seconds()
	}
	s.PeakRate1s = peak(rs, time.Second)
	in, out := make([]int, len(rs)), make([]int, len(rs))
	for i, r := range rs {
		in[i], out[i] = r.Input, r.Output
		s.HasHashes = s.HasHashes || len(r.Hashes) > 0
	}
	s.Input, s.Output = distribution(in), distribution(out)
	s.PrefixReuse = prefixReuse(rs, t.BlockSize)
	s.Sessions, s.Turns, s.MaxTurns = sessions(rs)
	return s
}

// peak is the most instants of rs (sorted) in any window [At, At+w).
func peak(rs []Request, w time.Duration) int {
	best, j := 0, 0
	for i := range rs {
		for j < len(rs) && rs[j].At-rs[i].At < w {
			j++
		}
		best = max(best, j-i)
	}
	return best
}

// prefixKey is a block's identity as a prefix cache sees it: the chain of
// the hash ids up to and including it.
type prefixKey struct {
	parent uint64
	id     int64
}

// chain folds one more block into a prefix's identity.
func chain(parent uint64, id int64) uint64 {
	h := parent ^ 0x9e3779b97f4a7c15
	h ^= uint64(id) + 0x632be59bd9b4e019 + (h << 6) + (h >> 2)
	h *= 0xff51afd7ed558ccd
	return h ^ h>>33
}

// blockTokens is the tokens of block i of a request: bs, or what is left.
func blockTokens(input, bs, i int) int { return min(bs, input-i*bs) }

// prefixReuse is the share of all prompt tokens that sit in leading blocks
// an earlier request sent in full (up to the tokens it sent of them).
func prefixReuse(rs []Request, bs int) float64 {
	if bs <= 0 {
		return 0
	}
	sent := map[prefixKey]int{} // a block, by prefix: the most of its tokens sent so far
	var total, hit int
	for _, r := range rs {
		total += r.Input
		var parent uint64
		open := true // every block so far was sent before in full
		for i, id := range r.Hashes {
			k := prefixKey{parent, id}
			n := blockTokens(r.Input, bs, i)
			if open {
				got := min(sent[k], n)
				hit += got
				open = got == n
			}
			sent[k] = max(sent[k], n)
			parent = chain(parent, id)
		}
	}
	if total == 0 {
		return 0
	}
	return float64(hit) / float64(total)
}

// sessions counts the conversations of more than one turn, the requests in
// them and the longest, following parent links among the trace's requests.
func sessions(rs []Request) (sessions, turns, longest int) {
	root := map[int64]int64{}
	size := map[int64]int{}
	for _, r := range rs {
		top := r.ID
		if p, ok := root[r.Parent]; ok && r.Parent != NoParent {
			top = p
		}
		root[r.ID] = top
		size[top]++
	}
	for _, n := range size {
		if n > 1 {
			sessions++
			turns += n
			longest = max(longest, n)
		}
	}
	return sessions, turns, longest
}

// Timed reports whether the trace's instants span any time, so that it
// has a mean rate to replay at a speed (MeanRate is defined then only).
func (s Summary) Timed() bool { return s.Span > 0 }
