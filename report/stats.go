package report

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/sweep"
)

// NoSample is the value of a time figure that has no sample: the
// time.Duration counterpart of NaN. Renderers print it as an empty CSV cell,
// "-" on the console and null in JSON.
const NoSample time.Duration = math.MinInt64

// TokenSource says where a level's token counts come from.
type TokenSource string

// The token sources. A level with no successful request has source "".
const (
	TokensUsage  TokenSource = "usage"  // every successful request reported usage
	TokensChunks TokenSource = "chunks" // none did: one token per token-carrying chunk
	TokensMixed  TokenSource = "mixed"  // some did
)

// MismatchTolerance is the relative difference between a request's usage
// completion_tokens U and its chunk count K above which it counts in
// LevelStats.TokenCountMismatch: |K − U| / U > MismatchTolerance.
const MismatchTolerance = 0.02

// LevelStats holds every figure of one level, computed by Summarize. Rates
// and means are float64 (NaN when undefined), time figures time.Duration
// (NoSample when undefined). docs/metrics.md defines each field.
type LevelStats struct {
	Concurrency int     // closed loop: the workers; open loop: the cap (0: none)
	Rate        float64 // open loop: the offered rate, req/s; 0 closed loop
	Repeat      int
	EndReason   sweep.EndReason

	RequestsOK     int // successful measured requests
	RequestsFailed int // failed measured requests
	// Errors counts failed measured requests per class, one entry per
	// client.ErrorClasses class, in that order.
	Errors ErrorCounts

	TokenSource        TokenSource
	TokenCountMismatch int // successful requests with usage whose chunk count is off by > 2%

	// Single stream: what one user sees, over successful requests.
	TTFTP50, TTFTP95, TTFTP99 time.Duration // FirstToken − Start
	TTFCP50                   time.Duration // FirstContent − Start
	ReasoningRequests         int           // successful requests that streamed reasoning (chunks or usage)
	DecodeTPSP50              float64       // (U − w) / (LastToken − FirstToken)
	DecodeTPSP10              float64
	DecodeTPSMean             float64
	E2ETPSP50                 float64 // U / (End − Start)
	E2ETPSP10                 float64 // the slowest tenth of users, for the e2e SLO
	E2ETPSMean                float64
	E2ELatencyP50             time.Duration // End − Start (vLLM's E2EL)
	E2ELatencyP90             time.Duration
	E2ELatencyP99             time.Duration
	ITLP50, ITLP99            time.Duration // per token, weighted by tokens per chunk
	ITLMax                    time.Duration

	// Smoothness (smooth.go), over successful requests, against a reader
	// at ReadingSpeed tok/s (the level's, see sweep.Level.ReadingSpeed).
	ReadingSpeed     float64
	MaxGapP95        time.Duration // p95 of the per-request longest gap between chunks
	StallShare       float64       // share of successful requests with a gap > StallGap
	RebufferRatioP95 float64       // p95 of the reader's waiting / reading time
	SmoothShare      float64       // share of requests with tokens whose reader never waited

	// Aggregate: what the server delivers in the steady-state window
	// [WindowStart, WindowEnd] (offsets from the run epoch).
	WindowStart, WindowEnd time.Duration
	WindowFallback         bool          // no steady state: the window is the whole level
	MeasuredSpan           time.Duration // max End − min Start of the measured requests
	AggregateOutputTPS     float64
	AggregateTotalTPS      float64
	RequestsPerS           float64
	InflightMean           float64

	// Output size and finish reasons of successful requests. Min and max
	// are 0 when RequestsOK is 0.
	CompletionTokensMean float64
	CompletionTokensMin  int
	CompletionTokensMax  int
	FinishStop           int
	FinishLength         int

	// ClientLimited is set when the load generator, not the server, may
	// have limited the level, on corroborated evidence (clientlimit.go);
	// ClientLimitedReason gives the evidence of the checks that fired.
	ClientLimited       bool
	ClientLimitedReason string
	// ClientDelayP99 is the p99, over the token chunks of successful
	// requests, of arrival minus the server's send stamp (Record.SendLag):
	// the delay the client added, measured; NoSample when the server sent
	// no stamps. The client-limit checks prefer it to the ticker.
	ClientDelayP99 time.Duration

	// SLO is the level's verdict against the run's SLO; nil without one.
	// Summarize leaves it nil: the caller judges with CheckSLO.
	SLO *SLOResult

	// Health is the client's view of itself during the level, as the sweep
	// recorded it; the client-limit checks read it.
	Health sweep.Health

	// Server is the server's own view of the level, when it was scraped.
	Server ServerStats

	// Session holds the multi-turn figures (sessions.go).
	Session SessionStats
	// Rates and in-flight, both loops (openloop.go).
	Finished     int     // measured requests that finished (not canceled)
	AchievedRPS  float64 // (Finished − 1) / (last End − first End)
	InflightPeak int     // most measured requests on the wire at once
	TPOTP50      time.Duration
	TPOTP99      time.Duration // (End − FirstToken) / (U − 1), vLLM's TPOT

	// Open loop only (Rate > 0): the realised arrival rate, the dispatch
	// delay Start − Sched, the TTFT rise and the stability verdict.
	OfferedRPS                                           float64
	DispatchDelayP50, DispatchDelayP99, DispatchDelayMax time.Duration
	TTFTRise                                             time.Duration
	Unstable                                             bool
	UnstableReason                                       string

	requests []requestFigures // per successful request, for goodput
	// Extra holds the --percentiles columns' values by column name
	// (percentiles.go); nil without --percentiles.
	Extra map[string]float64
}

// Window is the length of the steady-state window.
func (s *LevelStats) Window() time.Duration { return s.WindowEnd - s.WindowStart }

// Summarize computes the figures of one level. It is pure: the same level
// always gives the same stats.
func Summarize(l sweep.Level) LevelStats {
	s := LevelStats{
		Concurrency: l.Concurrency,
		Rate:        l.Rate,
		Repeat:      l.Repeat,
		EndReason:   l.EndReason,
		Health:      l.Health,
	}
	var measured, ok []client.Record
	for _, r := range l.Records {
		if r.Warmup {
			continue
		}
		measured = append(measured, r)
		if r.OK() {
			ok = append(ok, r)
		}
	}
	s.countOutcomes(measured)
	s.countTokens(ok)
	s.singleStream(ok)
	s.smoothness(ok, readingSpeed(&l))
	s.aggregate(measured)
	s.ClientDelayP99 = clientDelayP99(ok)
	s.Session = sessionStats(measured)
	s.throughput(measured, ok)
	s.openLoop(measured, ok)
	s.ClientLimited, s.ClientLimitedReason = clientLimited(&s)
	s.Server = serverStats(l.Server)
	return s
}

// tokenWeight is w = U/K, the tokens each token-carrying chunk of r is taken
// to carry (usage spread evenly over chunks). It is 0 when r has no chunk.
func tokenWeight(r *client.Record) float64 {
	k := len(r.ChunkAt)
	if k == 0 {
		return 0
	}
	return float64(r.OutputTokens()) / float64(k)
}

// countOutcomes fills the success and per-class failure counts.
func (s *LevelStats) countOutcomes(measured []client.Record) {
	s.Errors = newErrorCounts()
	for i := range measured {
		r := &measured[i]
		if r.OK() {
			s.RequestsOK++
			continue
		}
		// A class outside client.ErrorClasses still counts as failed.
		s.RequestsFailed++
		s.Errors.add(r.ErrorClass)
	}
}

// countTokens fills the token source, mismatch, output size and finish
// reason figures from the successful requests.
func (s *LevelStats) countTokens(ok []client.Record) {
	s.CompletionTokensMean = math.NaN()
	if len(ok) == 0 {
		return
	}
	withUsage, sum := 0, 0.0 // float64: no sum of counts can overflow
	s.CompletionTokensMin = math.MaxInt
	for i := range ok {
		r := &ok[i]
		u, k := r.OutputTokens(), len(r.ChunkAt)
		sum += float64(u)
		s.CompletionTokensMin = min(s.CompletionTokensMin, u)
		s.CompletionTokensMax = max(s.CompletionTokensMax, u)
		switch r.FinishReason {
		case "stop":
			s.FinishStop++
		case "length":
			s.FinishLength++
		}
		if !r.HasUsage {
			continue
		}
		withUsage++
		if r.UsageAbsurd() || mismatched(u, k) { // an absurd count is flagged, and u is the chunk count
			s.TokenCountMismatch++
		}
	}
	s.CompletionTokensMean = sum / float64(len(ok))
	switch withUsage {
	case len(ok):
		s.TokenSource = TokensUsage
	case 0:
		s.TokenSource = TokensChunks
	default:
		s.TokenSource = TokensMixed
	}
}

// mismatched reports whether usage u and chunk count k differ by more than
// MismatchTolerance of u. Any chunk against zero usage is a mismatch.
func mismatched(u, k int) bool {
	if u == 0 {
		return k != 0
	}
	return math.Abs(float64(k-u))/float64(u) > MismatchTolerance
}

// singleStream fills the per-request figures: TTFT, TTFC, decode and e2e
// rates, and the pooled per-token ITL.
func (s *LevelStats) singleStream(ok []client.Record) {
	var ttft, ttfc, decode, e2e, e2el []float64
	gaps := 0
	for i := range ok {
		gaps += max(len(ok[i].ChunkAt)-1, 0)
	}
	itl := make([]WeightedValue, 0, gaps) // sized once: a level can hold millions of gaps
	itlMax := math.NaN()
	for i := range ok {
		r := &ok[i]
		k := len(r.ChunkAt)
		if v := RequestE2ETPS(r); !math.IsNaN(v) {
			e2e = append(e2e, v)
		}
		if r.End > r.Origin() {
			e2el = append(e2el, float64(r.End-r.Origin()))
		}
		if r.FirstContent > 0 {
			ttfc = append(ttfc, float64(r.FirstContent-r.Origin()))
		}
		if r.ReasoningChunks > 0 || r.ReasoningTokens > 0 {
			s.ReasoningRequests++
		}
		if k == 0 {
			continue // no token times
		}
		w := tokenWeight(r)
		ttft = append(ttft, float64(RequestTTFT(r)))
		if d := RequestDecodeTPS(r); !math.IsNaN(d) {
			decode = append(decode, d)
		}
		if w <= 0 {
			continue // usage says no tokens: no per-token latency
		}
		for j := 1; j < k; j++ {
			perToken := float64(r.ChunkAt[j]-r.ChunkAt[j-1]) / w
			itl = append(itl, WeightedValue{Value: perToken, Weight: w})
			itlMax = nanMax(itlMax, perToken)
		}
	}
	for _, xs := range [][]float64{ttft, ttfc, decode, e2e, e2el} {
		slices.Sort(xs)
	}
	slices.SortFunc(itl, func(a, b WeightedValue) int { return cmp.Compare(a.Value, b.Value) })

	s.TTFTP50 = duration(Percentile(ttft, 50))
	s.TTFTP95 = duration(Percentile(ttft, 95))
	s.TTFTP99 = duration(Percentile(ttft, 99))
	s.TTFCP50 = duration(Percentile(ttfc, 50))
	s.DecodeTPSP50 = Percentile(decode, 50)
	s.DecodeTPSP10 = Percentile(decode, 10)
	s.DecodeTPSMean = Mean(decode)
	s.E2ETPSP50 = Percentile(e2e, 50)
	s.E2ETPSP10 = Percentile(e2e, 10)
	s.E2ETPSMean = Mean(e2e)
	s.E2ELatencyP50 = duration(Percentile(e2el, 50))
	s.E2ELatencyP90 = duration(Percentile(e2el, 90))
	s.E2ELatencyP99 = duration(Percentile(e2el, 99))
	s.ITLP50 = duration(WeightedPercentile(itl, 50))
	s.ITLP99 = duration(WeightedPercentile(itl, 99))
	s.ITLMax = duration(itlMax)
}

// duration converts nanoseconds to a Duration, NaN to NoSample.
func duration(ns float64) time.Duration {
	if math.IsNaN(ns) {
		return NoSample
	}
	return time.Duration(math.Round(ns))
}

// Mean is the arithmetic mean of the values of xs, skipping NaN and ±Inf
// (no value); NaN when none is left.
func Mean(xs []float64) float64 {
	var sum float64
	n := 0
	for _, x := range xs {
		if defined(x) {
			sum, n = sum+x, n+1
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// nanMax is max treating NaN as "no value yet".
func nanMax(a, b float64) float64 {
	if math.IsNaN(a) || b > a {
		return b
	}
	return a
}
