package report

import (
	"iter"
	"math"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/internal/hist"
)

// Summarize reads a level's records twice, one at a time (the level's
// records may be a file, not a slice): the first pass (gather) keeps a few
// scalars per measured request and puts the figures pooled over token
// chunks into histograms; the second (aggregate) counts the chunks inside
// the steady window the first pass found. So a level's memory grows with
// its requests, never with its tokens.

// request is what the figures of a level need of one measured request:
// scalars only, no per-chunk slice.
type request struct {
	class                     client.ErrorClass
	worker, session, turn     int
	mode                      string // the record's Mode (a marking mode's)
	sched, start, end         time.Duration
	firstToken, firstContent  time.Duration
	chunks, tokens, prompt    int // K, U (OutputTokens), usage prompt_tokens
	traceIn, traceOut         int // a replay's lengths in the trace (Record.TraceInput, TraceOutput)
	hasUsage, absurd, reasons bool
	finish                    string
	ttft                      time.Duration // RequestTTFT
	decode, e2e               float64       // RequestDecodeTPS, RequestE2ETPS
	smooth                    Smoothness
	branch                    int           // Record.Branch
	toolWait, think           time.Duration // Record.ToolWait, Think
	history                   float64       // Record.History
}

func (r *request) ok() bool { return r.class == client.OK }

// origin is client.Record.Origin.
func (r *request) origin() time.Duration {
	if r.sched != 0 {
		return r.sched
	}
	return r.start
}

// tpot is vLLM's TPOT, (End − FirstToken) / (U − 1); NaN when U ≤ 1 or
// there is no token.
func (r *request) tpot() float64 {
	if r.tokens > 1 && r.chunks > 0 && r.end >= r.firstToken {
		return float64(r.end-r.firstToken) / float64(r.tokens-1)
	}
	return math.NaN()
}

// goodputTPOT is tpot for the goodput's TPOT bound: 0 when the request
// has no TPOT (one token or none), as vLLM's goodput counts it.
func (r *request) goodputTPOT() float64 {
	if v := r.tpot(); !math.IsNaN(v) {
		return v
	}
	return 0
}

// gathered is the first pass over a level: its measured requests in record
// order, the successful ones among them, and the pooled per-chunk figures.
type gathered struct {
	measured []request
	ok       []*request // into measured
	itl      hist.Hist  // per token gap, weighted by tokens per chunk
	lag      hist.Hist  // Record.SendLag of every token chunk
}

// gather is the first pass over recs, warm-up left out; speed is the
// smoothness reader's pace.
func gather(recs iter.Seq[*client.Record], speed float64) *gathered {
	g := &gathered{}
	for r := range recs {
		if r.Warmup {
			continue
		}
		g.measured = append(g.measured, newRequest(r, speed))
		if r.OK() {
			g.addChunks(r)
		}
	}
	for i := range g.measured {
		if g.measured[i].ok() {
			g.ok = append(g.ok, &g.measured[i])
		}
	}
	return g
}

func newRequest(r *client.Record, speed float64) request {
	return request{
		class: r.ErrorClass, worker: r.Worker, session: r.Session, turn: r.Turn, mode: r.Mode,
		sched: r.Sched, start: r.Start, end: r.End, firstToken: r.FirstToken, firstContent: r.FirstContent,
		chunks: len(r.ChunkAt), tokens: r.OutputTokens(), prompt: r.PromptTokens,
		traceIn: r.TraceInput, traceOut: r.TraceOutput,
		hasUsage: r.HasUsage, absurd: r.UsageAbsurd(), reasons: r.ReasoningChunks > 0 || r.ReasoningTokens > 0,
		finish: r.FinishReason,
		ttft:   RequestTTFT(r), decode: RequestDecodeTPS(r), e2e: RequestE2ETPS(r),
		smooth: RequestSmoothness(r, speed),
		branch: r.Branch, toolWait: r.ToolWait, think: r.Think, history: r.History,
	}
}

// addChunks adds a successful request's gaps to the ITL histogram, each
// gap over the w = U/K tokens a chunk is taken to carry and weighted by w,
// and its send lags to the client-delay histogram.
func (g *gathered) addChunks(r *client.Record) {
	if w := tokenWeight(r); w > 0 {
		for j := 1; j < len(r.ChunkAt); j++ {
			g.itl.Add(float64(r.ChunkAt[j]-r.ChunkAt[j-1])/w, w)
		}
	}
	for _, d := range r.SendLag {
		g.lag.Add(float64(d), 1)
	}
}
