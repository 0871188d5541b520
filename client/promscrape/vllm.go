package promscrape

import (
	"math"
	"time"
)

// Names are the vLLM metric names read, per figure, in order of
// preference: the first name present in a scrape is used. Counters are
// listed with and without the _total suffix, since vLLM (Python
// prometheus_client) appends it and Go servers such as llm-d-inference-sim
// (client_golang) do not.
var Names = struct {
	Running, Waiting, KVUsage, PrefixHitRateGauge []string
	PrefixQueries, PrefixHits                     []string // pairwise: the i-th queries with the i-th hits
	TTFT, Queue, Prefill                          string   // histograms: NAME_sum and NAME_count

	Preemptions []string // a counter: requests evicted for want of KV-cache blocks

	// Speculative decoding's counters (vLLM v1; v0 has no drafts counter).
	SpecDrafts, SpecDraftTokens, SpecAccepted []string
}{
	Running:            []string{"vllm:num_requests_running"},
	Waiting:            []string{"vllm:num_requests_waiting"},
	KVUsage:            []string{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"}, // v1 name, then v0's
	PrefixHitRateGauge: []string{"vllm:gpu_prefix_cache_hit_rate"},                        // v0 only
	PrefixQueries: []string{"vllm:prefix_cache_queries_total", "vllm:prefix_cache_queries",
		"vllm:gpu_prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries"},
	PrefixHits: []string{"vllm:prefix_cache_hits_total", "vllm:prefix_cache_hits",
		"vllm:gpu_prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits"},
	TTFT:    "vllm:time_to_first_token_seconds",
	Queue:   "vllm:request_queue_time_seconds",
	Prefill: "vllm:request_prefill_time_seconds",

	Preemptions: []string{"vllm:num_preemptions_total", "vllm:num_preemptions"},

	SpecDrafts:      []string{"vllm:spec_decode_num_drafts_total", "vllm:spec_decode_num_drafts"},
	SpecDraftTokens: []string{"vllm:spec_decode_num_draft_tokens_total", "vllm:spec_decode_num_draft_tokens"},
	SpecAccepted:    []string{"vllm:spec_decode_num_accepted_tokens_total", "vllm:spec_decode_num_accepted_tokens"},
}

// value is one figure of a scrape, and whether the server exported it.
type value struct {
	V  float64
	OK bool
}

// hist is a histogram's cumulative sum (seconds) and count in one scrape.
type hist struct {
	Sum, Count float64
	OK         bool
}

// Snapshot is what one scrape says, in the figures toksweep reads.
type Snapshot struct {
	Running, Waiting value // summed over label sets
	KVUsage          value // averaged over label sets (one per engine)
	HitRateGauge     value // averaged over label sets
	PrefixQueries    value // cumulative counters, summed
	PrefixHits       value
	Preemptions      value // cumulative counter, summed
	TTFT, Queue      hist
	Prefill          hist
	// Speculative decoding's cumulative counters, summed.
	SpecDrafts, SpecDraftTokens, SpecAccepted value
}

// Known reports whether the scrape held any metric toksweep reads.
func (s *Snapshot) Known() bool {
	return s.Running.OK || s.Waiting.OK || s.KVUsage.OK || s.HitRateGauge.OK || s.PrefixQueries.OK ||
		s.TTFT.OK || s.Queue.OK || s.Prefill.OK
}

// Read picks the figures out of an exposition.
func Read(e *Exposition) *Snapshot {
	s := &Snapshot{
		Running:      e.first(Names.Running, false),
		Waiting:      e.first(Names.Waiting, false),
		KVUsage:      e.first(Names.KVUsage, true),
		HitRateGauge: e.first(Names.PrefixHitRateGauge, true),
		TTFT:         e.hist(Names.TTFT),
		Queue:        e.hist(Names.Queue),
		Prefill:      e.hist(Names.Prefill),
		Preemptions:  e.first(Names.Preemptions, false),

		SpecDrafts:      e.first(Names.SpecDrafts, false),
		SpecDraftTokens: e.first(Names.SpecDraftTokens, false),
		SpecAccepted:    e.first(Names.SpecAccepted, false),
	}
	for i, q := range Names.PrefixQueries {
		if e.has(q) {
			s.PrefixQueries = e.first([]string{q}, false)
			s.PrefixHits = e.first([]string{Names.PrefixHits[i]}, false)
			break
		}
	}
	return s
}

func (e *Exposition) has(name string) bool { return e.Series[name].N > 0 }

// first is the first of names present: its sum over label sets, or its
// mean when mean is set.
func (e *Exposition) first(names []string, mean bool) value {
	for _, n := range names {
		if s := e.Series[n]; s.N > 0 {
			if mean {
				return value{s.Sum / float64(s.N), true}
			}
			return value{s.Sum, true}
		}
	}
	return value{}
}

func (e *Exposition) hist(name string) hist {
	sum, count := e.Series[name+"_sum"], e.Series[name+"_count"]
	if sum.N == 0 || count.N == 0 {
		return hist{}
	}
	return hist{Sum: sum.Sum, Count: count.Sum, OK: true}
}

// LevelMetrics is the server's own account of one level, as sums and
// counts: plain, JSON-safe data in which a figure the server does not
// export simply has no samples. Its methods compute the figures.
type LevelMetrics struct {
	// Scrapes counts the successful scrapes taken while the level ran,
	// from FirstSample in at gaps doubling up to the sampling interval,
	// and EndLag after its load ended (Sampler.StartLevel): the samples of
	// the gauges, each gauge's mean rests on its N of them. The opening
	// and closing scrapes, taken while the server is idle between levels,
	// only bound the counters and histograms.
	Scrapes  int    `json:"scrapes"`
	Failures int    `json:"failures"`        // failed scrapes, opening and closing included
	Error    string `json:"error,omitempty"` // the first failure

	Running      Gauge `json:"running"`        // vllm:num_requests_running
	Waiting      Gauge `json:"waiting"`        // vllm:num_requests_waiting
	KVUsage      Gauge `json:"kv_usage"`       // vllm:kv_cache_usage_perc, a fraction
	HitRateGauge Gauge `json:"hit_rate_gauge"` // vllm:gpu_prefix_cache_hit_rate (vLLM v0)

	// PrefixQueries and PrefixHits are the increase of vLLM's prefix cache
	// counters (in tokens) over the level.
	PrefixQueries Increase `json:"prefix_queries"`
	PrefixHits    Increase `json:"prefix_hits"`
	// Preemptions is the increase of vllm:num_preemptions_total: requests
	// the server evicted for want of KV-cache blocks, to recompute later.
	Preemptions Increase `json:"preemptions,omitzero"`

	// The increase of the server's latency histograms over the level.
	TTFT    Histogram `json:"ttft"`    // vllm:time_to_first_token_seconds
	Queue   Histogram `json:"queue"`   // vllm:request_queue_time_seconds
	Prefill Histogram `json:"prefill"` // vllm:request_prefill_time_seconds

	// The increase of speculative decoding's counters over the level:
	// drafts proposed, draft tokens proposed, and of those accepted.
	SpecDrafts      Increase `json:"spec_drafts,omitzero"`
	SpecDraftTokens Increase `json:"spec_draft_tokens,omitzero"`
	SpecAccepted    Increase `json:"spec_accepted,omitzero"`

	// GPU is the GPUs' telemetry over the level (--gpu-metrics-url); nil
	// when none was asked for.
	GPU *GPUMetrics `json:"gpu,omitempty"`
	// NoServer is set when only the GPUs were sampled, not the server's
	// own endpoint: the figures above are then undefined.
	NoServer bool `json:"no_server,omitempty"`
}

// Gauge is a sum of gauge samples and their number.
type Gauge struct {
	Sum float64 `json:"sum"`
	N   int     `json:"n"`
}

// Mean is the mean sample, NaN when there is none.
func (g Gauge) Mean() float64 {
	if g.N == 0 {
		return math.NaN()
	}
	return g.Sum / float64(g.N)
}

func (g *Gauge) add(v value) {
	if v.OK {
		g.Sum += v.V
		g.N++
	}
}

// Increase is a counter's increase over the level; OK is false when the
// server does not export it or it went down (a restart).
type Increase struct {
	Delta float64 `json:"delta"`
	OK    bool    `json:"ok"`
}

// Histogram is the increase of a histogram's sum and count over the level.
type Histogram struct {
	Sum   time.Duration `json:"sum_ns"`
	Count int64         `json:"count"`
}

// Mean is the mean observation over the level; ok is false when there
// was none (or the server does not export the histogram).
func (h Histogram) Mean() (d time.Duration, ok bool) {
	if h.Count <= 0 {
		return 0, false
	}
	return h.Sum / time.Duration(h.Count), true
}

// PrefixHitRate is hits/queries of the prefix cache over the level, or,
// without those counters, the mean of vLLM v0's hit-rate gauge; NaN when
// neither is known or nothing was queried.
func (m *LevelMetrics) PrefixHitRate() float64 {
	if m.PrefixQueries.OK && m.PrefixHits.OK {
		if m.PrefixQueries.Delta <= 0 {
			return math.NaN()
		}
		return m.PrefixHits.Delta / m.PrefixQueries.Delta
	}
	return m.HitRateGauge.Mean()
}

// sample adds one in-level scrape to the gauges.
func (m *LevelMetrics) sample(s *Snapshot) {
	m.Scrapes++
	m.Running.add(s.Running)
	m.Waiting.add(s.Waiting)
	m.KVUsage.add(s.KVUsage)
	m.HitRateGauge.add(s.HitRateGauge)
}

// between sets the counters and histograms from the opening and closing
// scrapes. A series absent when the level opened but present when it
// closed started at zero: Go servers create a labelled series at its first
// observation.
func (m *LevelMetrics) between(open, closing *Snapshot) {
	m.PrefixQueries = increase(open.PrefixQueries, closing.PrefixQueries)
	m.PrefixHits = increase(open.PrefixHits, closing.PrefixHits)
	m.Preemptions = increase(open.Preemptions, closing.Preemptions)
	m.TTFT = histIncrease(open.TTFT, closing.TTFT)
	m.Queue = histIncrease(open.Queue, closing.Queue)
	m.Prefill = histIncrease(open.Prefill, closing.Prefill)
	m.SpecDrafts = increase(open.SpecDrafts, closing.SpecDrafts)
	m.SpecDraftTokens = increase(open.SpecDraftTokens, closing.SpecDraftTokens)
	m.SpecAccepted = increase(open.SpecAccepted, closing.SpecAccepted)
}

// SpecAcceptance is accepted / draft tokens of speculative decoding over
// the level; NaN without the counters or with no draft token.
func (m *LevelMetrics) SpecAcceptance() float64 {
	return ratio(m.SpecAccepted, m.SpecDraftTokens)
}

// SpecAcceptedPerDraft is accepted tokens / drafts over the level (vLLM's
// logged mean acceptance length is this plus 1, the verified token); NaN
// without the counters or with no draft.
func (m *LevelMetrics) SpecAcceptedPerDraft() float64 {
	return ratio(m.SpecAccepted, m.SpecDrafts)
}

func ratio(a, b Increase) float64 {
	if !a.OK || !b.OK || b.Delta <= 0 {
		return math.NaN()
	}
	return a.Delta / b.Delta
}

func increase(a, b value) Increase {
	if !b.OK || b.V < a.V {
		return Increase{}
	}
	return Increase{Delta: b.V - a.V, OK: true}
}

func histIncrease(a, b hist) Histogram {
	if !b.OK || b.Count < a.Count || b.Sum < a.Sum {
		return Histogram{}
	}
	return Histogram{
		Sum:   time.Duration(math.Round((b.Sum - a.Sum) * float64(time.Second))),
		Count: int64(math.Round(b.Count - a.Count)),
	}
}
