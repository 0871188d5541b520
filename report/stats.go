package report

import (
	"math"
	"slices"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/sweep"
	"github.com/toksweep/toksweep/workload/trace"
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
	Mode        string  // the level's mode (sweep.LevelKey.Mode)
	Concurrency int     // closed loop: the workers; open loop: the cap (0: none)
	Rate        float64 // open loop: the offered rate, req/s; 0 closed loop
	Repeat      int
	EndReason   sweep.EndReason
	// Class is the traffic class of a class row (Classes); "" for a level.
	Class string
	// Classes are the level's class rows, one per class of the run
	// (Settings.Classes), each the figures of its requests alone; nil
	// without classes.
	Classes []LevelStats

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
	E2ELatencyP95             time.Duration // the --slo-e2e-p95 figure
	E2ELatencyP99             time.Duration
	ITLP50, ITLP99            time.Duration // per token, weighted by tokens per chunk; within 0.1% (internal/hist)
	ITLMax                    time.Duration

	// Smoothness (smooth.go), over successful requests, against a reader
	// at ReadingSpeed tok/s (the run's, Settings.ReadingSpeed).
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
	// requests, of arrival minus the server's send stamp (Record.SendLag),
	// within 0.1% (internal/hist): the delay the client added, measured;
	// NoSample when the server sent no stamps. The client-limit checks
	// prefer it to the ticker.
	ClientDelayP99 time.Duration

	// SLO is the level's verdict against the run's SLO; nil without one.
	// Summarize leaves it nil: the caller judges with CheckSLO.
	SLO *SLOResult

	// Health is the client's view of itself during the level, as the sweep
	// recorded it; the client-limit checks read it.
	Health sweep.Health

	// Server is the server's own view of the level, when it was scraped.
	Server ServerStats
	// GPU is the GPUs' own account (--gpu-metrics-url), the same way.
	GPU GPUStats

	// Session holds the multi-turn figures (sessions.go).
	Session SessionStats
	// InputLengthError and OutputLengthError are a trace replay's achieved
	// lengths against the trace's (lengtherrors.go); N 0 and NaN outside
	// a replay.
	InputLengthError, OutputLengthError trace.LengthError
	// Rates and in-flight, both loops (openloop.go).
	Finished     int     // measured requests that finished (not canceled)
	AchievedRPS  float64 // (Finished − 1) / (last End − first End)
	InflightPeak int     // most measured requests on the wire at once
	TPOTP50      time.Duration
	TPOTP99      time.Duration // (End − FirstToken) / (U − 1), vLLM's TPOT

	// Open loop only (an open-loop mode): the realised arrival rate, the dispatch
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

// Key is the level's key: its mode, concurrency and rate.
func (s LevelStats) Key() sweep.LevelKey {
	k := sweep.LevelKey{Mode: s.Mode, Concurrency: s.Concurrency, Load: s.Rate}
	if k.Mode == "" { // a LevelStats made by hand: the mode its settings show
		k.Mode = sweep.ClaimMode(&sweep.Level{Concurrency: s.Concurrency, Rate: s.Rate})
	}
	return k
}

// levelMode is l's mode: its Mode, else the mode that claims it, judged on
// its first measured request (its records are not read twice).
func levelMode(l sweep.Level, g *gathered) string {
	if l.Mode != "" {
		return l.Mode
	}
	probe := sweep.Level{Concurrency: l.Concurrency, Rate: l.Rate, Records: []client.Record{}}
	if len(g.measured) > 0 {
		m := g.measured[0]
		probe.Records = []client.Record{{Concurrency: l.Concurrency, Rate: l.Rate, Session: m.session, Turn: m.turn, Mode: m.mode}}
	}
	return sweep.ClaimMode(&probe)
}

// Summarize computes the figures of one level under the run's settings
// set. It is pure: the same level and settings always give the same
// stats. It reads the level's records twice (gather.go), one at a time.
func Summarize(l sweep.Level, set Settings) LevelStats {
	s := LevelStats{
		Concurrency: l.Concurrency,
		Rate:        l.Rate,
		Repeat:      l.Repeat,
		EndReason:   l.EndReason,
		Health:      l.Health,
	}
	g := gather(l.All(), set.Reader())
	s.Mode = levelMode(l, g)
	s.countOutcomes(g.measured)
	s.countTokens(g.ok)
	s.singleStream(g)
	s.smoothness(g.ok, set.Reader())
	s.window(g.measured)
	if lv := set.level; lv != nil { // a class row: the class's share of the level's window
		s.WindowStart, s.WindowEnd, s.WindowFallback = lv.WindowStart, lv.WindowEnd, lv.WindowFallback
	}
	s.aggregate(l.All())
	s.ClientDelayP99 = duration(g.lag.Percentile(99))
	s.Session = sessionStats(g.measured)
	s.InputLengthError, s.OutputLengthError = lengthErrors(g.ok)
	s.throughput(g.measured, g.ok)
	s.openLoop(g.measured, g.ok)
	s.ClientLimited, s.ClientLimitedReason = clientLimited(&s)
	s.Server = serverStats(l.Server)
	s.GPU = gpuStats(l)
	s.percentiles(g, set.Percentiles)
	s.Classes = summarizeClasses(l, set, &s)
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
func (s *LevelStats) countOutcomes(measured []request) {
	s.Errors = newErrorCounts()
	for i := range measured {
		r := &measured[i]
		if r.ok() {
			s.RequestsOK++
			continue
		}
		// A class outside client.ErrorClasses still counts as failed.
		s.RequestsFailed++
		s.Errors.add(r.class)
	}
}

// countTokens fills the token source, mismatch, output size and finish
// reason figures from the successful requests.
func (s *LevelStats) countTokens(ok []*request) {
	s.CompletionTokensMean = math.NaN()
	if len(ok) == 0 {
		return
	}
	withUsage, sum := 0, 0.0 // float64: no sum of counts can overflow
	s.CompletionTokensMin = math.MaxInt
	for _, r := range ok {
		u, k := r.tokens, r.chunks
		sum += float64(u)
		s.CompletionTokensMin = min(s.CompletionTokensMin, u)
		s.CompletionTokensMax = max(s.CompletionTokensMax, u)
		switch r.finish {
		case "stop":
			s.FinishStop++
		case "length":
			s.FinishLength++
		}
		if !r.hasUsage {
			continue
		}
		withUsage++
		if r.absurd || mismatched(u, k) { // an absurd count is flagged, and u is the chunk count
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
// rates, exact over the successful requests, and the per-token ITL from
// g's histogram (within hist.RelErr; its max exact).
func (s *LevelStats) singleStream(g *gathered) {
	var ttft, ttfc, decode, e2e, e2el []float64
	for _, r := range g.ok {
		if !math.IsNaN(r.e2e) {
			e2e = append(e2e, r.e2e)
		}
		if r.end > r.origin() {
			e2el = append(e2el, float64(r.end-r.origin()))
		}
		if r.firstContent > 0 {
			ttfc = append(ttfc, float64(r.firstContent-r.origin()))
		}
		if r.reasons {
			s.ReasoningRequests++
		}
		if r.chunks == 0 {
			continue // no token times
		}
		ttft = append(ttft, float64(r.ttft))
		if !math.IsNaN(r.decode) {
			decode = append(decode, r.decode)
		}
	}
	for _, xs := range [][]float64{ttft, ttfc, decode, e2e, e2el} {
		slices.Sort(xs)
	}

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
	s.E2ELatencyP95 = duration(Percentile(e2el, 95))
	s.E2ELatencyP99 = duration(Percentile(e2el, 99))
	s.ITLP50 = duration(g.itl.Percentile(50))
	s.ITLP99 = duration(g.itl.Percentile(99))
	s.ITLMax = duration(g.itl.Max())
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
