package report

import (
	"math"
	"slices"
	"time"

	"github.com/toksweep/toksweep/client/promscrape"
)

// ServerStats is the server's own account of a level, from its Prometheus
// endpoint (vLLM's metric names), next to the client's figures. Means are
// NaN and durations NoSample when the server does not export the metric or
// had nothing to report; every figure is undefined when Scraped is false.
type ServerStats struct {
	Scraped bool // the sweep sampled the server during the level
	Scrapes int  // in-level scrapes: the samples of the gauge means
	// Raw is what the figures were computed from, kept for summary.json.
	Raw *promscrape.LevelMetrics

	RunningMean   float64 // vllm:num_requests_running, mean over the in-level scrapes
	WaitingMean   float64 // vllm:num_requests_waiting, the same
	KVUsageMean   float64 // vllm:kv_cache_usage_perc (a fraction), the same
	PrefixHitRate float64 // Δ prefix-cache hits / Δ queries (tokens) over the level

	// Means of the server's histograms over the level: Δsum / Δcount.
	TTFTMean    time.Duration // vllm:time_to_first_token_seconds
	QueueMean   time.Duration // vllm:request_queue_time_seconds
	PrefillMean time.Duration // vllm:request_prefill_time_seconds

	// Speculative decoding over the level (vllm:spec_decode_*): the
	// counters' increases and their ratios; NaN without the counters.
	SpecDraftTokens, SpecAccepted        float64
	SpecAcceptance, SpecAcceptedPerDraft float64
}

// serverStats turns the sampled metrics into figures.
func serverStats(m *promscrape.LevelMetrics) ServerStats {
	s := ServerStats{
		RunningMean: math.NaN(), WaitingMean: math.NaN(), KVUsageMean: math.NaN(), PrefixHitRate: math.NaN(),
		TTFTMean: NoSample, QueueMean: NoSample, PrefillMean: NoSample,
		SpecDraftTokens: math.NaN(), SpecAccepted: math.NaN(), SpecAcceptance: math.NaN(), SpecAcceptedPerDraft: math.NaN(),
	}
	if m == nil {
		return s
	}
	s.Raw = m // the GPUs' telemetry rides along, scraped or not
	if m.NoServer {
		return s
	}
	if m.SpecDraftTokens.OK && m.SpecAccepted.OK {
		s.SpecDraftTokens, s.SpecAccepted = m.SpecDraftTokens.Delta, m.SpecAccepted.Delta
	}
	s.SpecAcceptance, s.SpecAcceptedPerDraft = m.SpecAcceptance(), m.SpecAcceptedPerDraft()
	s.Scraped, s.Scrapes = true, m.Scrapes
	s.RunningMean, s.WaitingMean, s.KVUsageMean = m.Running.Mean(), m.Waiting.Mean(), m.KVUsage.Mean()
	s.PrefixHitRate = m.PrefixHitRate()
	for _, h := range []struct {
		dst *time.Duration
		src promscrape.Histogram
	}{{&s.TTFTMean, m.TTFT}, {&s.QueueMean, m.Queue}, {&s.PrefillMean, m.Prefill}} {
		if d, ok := h.src.Mean(); ok {
			*h.dst = d
		}
	}
	return s
}

// ServerJSON is how a reader sees the server_* columns of summary.json
// (written from Columns), embedded in LevelJSON; null when undefined, all
// null when the server was not scraped.
type ServerJSON struct {
	Scrapes       *int     `json:"server_scrapes"`
	RunningMean   *float64 `json:"server_running_mean"`
	WaitingMean   *float64 `json:"server_waiting_mean"`
	KVUsageMean   *float64 `json:"server_kv_usage_mean"`
	PrefixHitRate *float64 `json:"server_prefix_hit_rate"`
	TTFTMeanMs    *float64 `json:"server_ttft_mean_ms"`
	QueueMeanMs   *float64 `json:"server_queue_mean_ms"`
	PrefillMeanMs *float64 `json:"server_prefill_mean_ms"`
}

// specColumn is a speculative-decoding figure of the server table, shown
// when a level has the counters.
func specColumn(name, unit, def, head string, decimals int, f func(*ServerStats) float64) Column {
	return Column{Name: name, Unit: unit, Def: def, Out: InFiles, Table: ServerTable, Group: "speculative decoding", Head: head,
		Decimals: decimals, PeopleDecimals: min(decimals, 3),
		Show: func(stats []LevelStats) bool {
			return slices.ContainsFunc(stats, func(s LevelStats) bool { return !math.IsNaN(s.Server.SpecAcceptance) })
		},
		Value: func(s *LevelStats) Value { return number(f(&s.Server)) }}
}
