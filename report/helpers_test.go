package report

import (
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/sweep"
)

const msec = time.Millisecond

// stream builds a successful record on worker 0 that starts at start, gets
// its first token after ttft and then k-1 more chunks gap apart, one token
// each (usage k), and ends with the last chunk.
func stream(start, ttft, gap time.Duration, k int) client.Record {
	r := client.Record{
		Start:            start,
		HasUsage:         true,
		CompletionTokens: k,
		FinishReason:     "stop",
		Status:           200,
	}
	for i := range k {
		r.ChunkAt = append(r.ChunkAt, ttft+time.Duration(i)*gap)
	}
	if k > 0 {
		r.FirstToken = start + ttft
		r.FirstContent = r.FirstToken
		r.LastToken = start + r.ChunkAt[k-1]
	}
	r.End = max(r.LastToken, start+ttft)
	return r
}

// failed builds a failed record of class c on worker w spanning [start, end].
func failed(c client.ErrorClass, w int, start, end time.Duration) client.Record {
	return client.Record{Worker: w, Start: start, End: end, ErrorClass: c, Status: 500}
}

// with applies changes to a copy of r.
func with(r client.Record, change func(*client.Record)) client.Record {
	change(&r)
	return r
}

// level wraps records into a completed level of concurrency c.
func level(c int, recs ...client.Record) sweep.Level {
	l := sweep.Level{Concurrency: c, EndReason: sweep.Completed, Records: recs}
	for i := range recs {
		recs[i].Concurrency = c
		recs[i].Seq = i
	}
	if len(recs) > 0 {
		l.Start, l.End = recs[0].Start, recs[0].End
		for _, r := range recs {
			l.Start, l.End = min(l.Start, r.Start), max(l.End, r.End)
		}
	}
	return l
}

// closedLoop builds a closed loop of c workers: worker w starts at
// w×stagger and runs one warm-up and then n measured requests back to back,
// each a stream(ttft, gap, k) with prompt tokens p.
func closedLoop(c, n int, stagger, ttft, gap time.Duration, k, p int) []client.Record {
	return closedLoopOf(c, n, stagger, func(w, i int) client.Record {
		r := stream(0, ttft, gap, k)
		r.PromptTokens = p
		return r
	})
}

// closedLoopOf is closedLoop with request i (0 is the warm-up) of worker w
// built by req, as if it started at 0; it is shifted to its place in the
// loop, starting when the worker's previous request ended.
func closedLoopOf(c, n int, stagger time.Duration, req func(w, i int) client.Record) []client.Record {
	var recs []client.Record
	for w := range c {
		at := time.Duration(w) * stagger
		for i := range n + 1 {
			r := req(w, i)
			r.Worker, r.Warmup = w, i == 0
			for _, t := range []*time.Duration{&r.Header, &r.FirstToken, &r.FirstContent, &r.LastToken} {
				if *t != 0 {
					*t += at
				}
			}
			r.Start, r.End = r.Start+at, r.End+at
			recs = append(recs, r)
			at = r.End
		}
	}
	return recs
}

// figures is s as its levels.csv row, keyed by column name.
func figures(s LevelStats) map[string]string {
	m := make(map[string]string)
	for i, cell := range levelRow(s) {
		m[LevelsCSVHeader[i]] = cell
	}
	return m
}
