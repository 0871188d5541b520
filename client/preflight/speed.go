package preflight

import "time"

// Speed is the pre-flight request's time to first token and time per
// output token after it (0, 0 when there is no pre-flight or it streamed
// fewer than two chunks). When the server stamped its sends (the
// simulator), the time per token is the stamps': a busy client may read
// the short stream in one burst.
func (r Result) Speed() (ttft, perToken time.Duration) {
	rec := r.Rec
	n := len(rec.ChunkAt)
	if !r.Measured || n < 2 || rec.FirstToken <= rec.Start {
		return 0, 0
	}
	first, last := rec.ChunkAt[0], rec.ChunkAt[n-1]
	if len(rec.SendLag) == n {
		first, last = first-rec.SendLag[0], last-rec.SendLag[n-1]
	}
	out := max(rec.OutputTokens(), n)
	return rec.FirstToken - rec.Start, (last - first) / time.Duration(out-1)
}
