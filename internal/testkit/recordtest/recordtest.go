package recordtest

import (
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/client/promscrape"
	"github.com/toksweep/toksweep/sweep"
)

const msec = time.Millisecond

// Stream builds a successful record on worker 0 that starts at start, gets
// its first token after ttft and then k-1 more chunks gap apart, one token
// each (usage k), and ends with the last chunk.
func Stream(start, ttft, gap time.Duration, k int) client.Record {
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

// Failed builds a failed record of class c on worker w spanning [start, end].
func Failed(c client.ErrorClass, w int, start, end time.Duration) client.Record {
	return client.Record{Worker: w, Start: start, End: end, ErrorClass: c, Status: 500}
}

// With applies changes to a copy of r.
func With(r client.Record, change func(*client.Record)) client.Record {
	change(&r)
	return r
}

// Level wraps records into a completed level of concurrency c.
func Level(c int, recs ...client.Record) sweep.Level {
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

// ClosedLoop builds a closed loop of c workers: worker w starts at
// w×stagger and runs one warm-up and then n measured requests back to back,
// each a Stream(ttft, gap, k) with prompt tokens p.
func ClosedLoop(c, n int, stagger, ttft, gap time.Duration, k, p int) []client.Record {
	return ClosedLoopOf(c, n, stagger, func(w, i int) client.Record {
		r := Stream(0, ttft, gap, k)
		r.PromptTokens = p
		return r
	})
}

// ClosedLoopOf is ClosedLoop with request i (0 is the warm-up) of worker w
// built by req, as if it started at 0; it is shifted to its place in the
// loop, starting when the worker's previous request ended.
func ClosedLoopOf(c, n int, stagger time.Duration, req func(w, i int) client.Record) []client.Record {
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

// Chunked builds a successful record whose token-carrying chunks arrive at
// the given offsets (ms) from its start, with usage u tokens.
func Chunked(u int, atMs ...float64) client.Record {
	r := client.Record{HasUsage: true, CompletionTokens: u, FinishReason: "stop", Status: 200}
	for _, ms := range atMs {
		r.ChunkAt = append(r.ChunkAt, time.Duration(ms*float64(msec)))
	}
	if n := len(r.ChunkAt); n > 0 {
		r.FirstToken, r.FirstContent, r.LastToken = r.ChunkAt[0], r.ChunkAt[0], r.ChunkAt[n-1]
		r.End = r.LastToken
	}
	return r
}

// OpenLevel builds an open-loop level at rate λ: request i is scheduled
// at 1s + i/λ, waits `wait(i)` in the client, then takes ttft(i) to its
// first token and 9 more tokens 10 ms apart.
func OpenLevel(rate float64, n int, wait, ttft func(i int) time.Duration) sweep.Level {
	var recs []client.Record
	for i := range n {
		sched := time.Second + time.Duration(float64(i)/rate*float64(time.Second))
		r := Stream(sched+wait(i), ttft(i), 10*msec, 10)
		r.Sched, r.Rate, r.Worker, r.Seq = sched, rate, i, i
		recs = append(recs, r)
	}
	l := Level(0, recs...)
	l.Rate = rate
	for i := range l.Records {
		l.Records[i].Rate = rate
	}
	return l
}

// Constant is a wait or TTFT function of OpenLevel that is d for every
// request.
func Constant(d time.Duration) func(int) time.Duration { return func(int) time.Duration { return d } }

// GoldenLevels is a fixed sweep covering every rendering path: a clean
// single stream, multi-token chunks with failures and reasoning, a
// client-limited level without usage, and an interrupted level with no
// successful request and no steady state.
func GoldenLevels() []sweep.Level {
	// C=1: the seed story, five times, TTFT creeping up 5 ms a request.
	one := ClosedLoopOf(1, 5, 0, func(_, i int) client.Record {
		r := Stream(0, 140*msec+time.Duration(i)*5*msec, 12280*time.Microsecond, 150)
		r.PromptTokens, r.End = 28, r.LastToken+msec
		if i == 5 {
			r.FinishReason = "length"
		}
		return r
	})

	// C=4: 32 chunks of 2 tokens, reasoning for the first 8, an uneven last
	// gap; one 5xx and one timeout.
	four := ClosedLoopOf(4, 3, 40*msec, func(w, i int) client.Record {
		r := Stream(0, 300*msec+time.Duration(w*10+i)*msec, 30*msec, 32)
		r.CompletionTokens, r.PromptTokens, r.ReasoningChunks = 64, 200, 8
		r.FirstContent = r.ChunkAt[8]
		r.ChunkAt[31] += time.Duration(w*4+i) * msec
		r.LastToken = r.ChunkAt[31]
		r.End = r.LastToken + 2*msec
		switch {
		case w == 1 && i == 2:
			return Failed(client.HTTP5xx, w, 0, 20*msec)
		case w == 2 && i == 3:
			return Failed(client.Timeout, w, 0, r.End)
		}
		return r
	})

	// C=8: no usage, and a client that lagged issuing requests and
	// timestamping tokens.
	eight := ClosedLoop(8, 2, 10*msec, 800*msec, 40*msec, 40, 200)
	for i := range eight {
		eight[i].HasUsage, eight[i].CompletionTokens = false, 0
	}

	// C=16, interrupted: two requests, canceled in flight, never overlapping.
	sixteen := []client.Record{
		Failed(client.Canceled, 0, 0, 300*msec),
		Failed(client.Canceled, 1, 400*msec, 900*msec),
	}

	levels := []sweep.Level{
		Level(1, one...), Level(4, four...), Level(8, eight...), Level(16, sixteen...),
	}
	levels[0].Health = sweep.Health{CPUSeconds: 0.1, WallSeconds: 10, GOMAXPROCS: 8, IssueLagMax: 200 * time.Microsecond, TimerLateMax: msec, TimerLateP99: 300 * time.Microsecond}
	levels[1].Health = sweep.Health{CPUSeconds: 0.4, WallSeconds: 3.4, GOMAXPROCS: 8, IssueLagMax: 400 * time.Microsecond, TimerLateMax: 2 * msec, TimerLateP99: 500 * time.Microsecond}
	// C=8: an issue lag alone (every worker stayed in flight) flags nothing;
	// a timer 12 ms late at p99, 30% of the 40 ms ITL, does.
	levels[2].Health = sweep.Health{CPUSeconds: 1.2, WallSeconds: 5.2, GOMAXPROCS: 8, IssueLagMax: 31 * msec, TimerLateMax: 15 * msec, TimerLateP99: 12 * msec}
	// C=4 was scraped: 3 samples, no prefix-cache counters, no prefill histogram.
	levels[1].Server = &promscrape.LevelMetrics{
		Scrapes: 3, Running: promscrape.Gauge{Sum: 11, N: 3}, Waiting: promscrape.Gauge{Sum: 1, N: 3},
		KVUsage: promscrape.Gauge{Sum: 0.37, N: 3},
		TTFT:    promscrape.Histogram{Sum: 4 * 312500 * time.Microsecond, Count: 4},
		Queue:   promscrape.Histogram{Sum: 9 * msec, Count: 4},
	}
	levels[2].EndReason = sweep.Deadline
	levels[3].EndReason = sweep.Canceled
	return levels
}
