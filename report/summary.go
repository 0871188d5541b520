package report

import (
	"encoding/json"
	"io"
	"math"
	"time"

	"github.com/toksweep/toksweep/promscrape"
	"github.com/toksweep/toksweep/sweep"
)

// Summary is the content of summary.json: what was run, and the figures of
// every level finished so far.
type Summary struct {
	Tool     string    `json:"tool"`
	Version  string    `json:"version"`
	URL      string    `json:"url"`
	Model    string    `json:"model"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"` // zero while the run is in progress
	// Config is the run configuration, already redacted by the caller (no
	// API key); it must be JSON-marshalable.
	Config    any         `json:"config,omitempty"`
	EndReason string      `json:"end_reason"` // why the run ended, in sweep.EndReason terms
	Levels    []LevelJSON `json:"levels"`
	// Metrics names the document defining every figure.
	Metrics string `json:"metrics"`
	// Recommendation is the capacity answer (SLO verdict and knee), set
	// when the run finished at least one level.
	Recommendation *RecommendationJSON `json:"recommendation,omitempty"`
}

// RecommendationJSON is Recommendation in summary.json.
type RecommendationJSON struct {
	SLO                    string   `json:"slo,omitempty"`
	RecommendedConcurrency *int     `json:"recommended_concurrency"`
	RecommendedOutputTPS   *float64 `json:"recommended_aggregate_output_tps"`
	FirstFailConcurrency   *int     `json:"first_fail_concurrency"`
	FirstFailReasons       []string `json:"first_fail_reasons,omitempty"`
	KneeConcurrency        *int     `json:"knee_concurrency"`
	// ExcludedConcurrency lists the levels left out of the knee and the
	// recommendation (report.Untrusted); the sentence says why.
	ExcludedConcurrency []int  `json:"excluded_concurrency,omitempty"`
	Sentence            string `json:"sentence"`
}

// NewRecommendationJSON converts r; zero concurrencies become null.
func NewRecommendationJSON(r Recommendation, stats []LevelStats) *RecommendationJSON {
	nz := func(n int) *int {
		if n == 0 {
			return nil
		}
		return &n
	}
	j := &RecommendationJSON{
		RecommendedConcurrency: nz(r.Recommended), FirstFailConcurrency: nz(r.FirstFail),
		FirstFailReasons: r.FirstFailWhy, KneeConcurrency: nz(r.Knee), Sentence: r.Sentence(stats),
	}
	if r.SLO.Set() {
		j.SLO = r.SLO.String()
	}
	for _, e := range r.Excluded {
		j.ExcludedConcurrency = append(j.ExcludedConcurrency, e.C)
	}
	if r.Recommended > 0 {
		j.RecommendedOutputTPS = rounded(r.RecommendedTPS, tpsDecimals)
	}
	return j
}

// MetricsDoc is the default Summary.Metrics: where the figures are defined.
const MetricsDoc = "docs/metrics.md"

// LevelJSON is one level in summary.json: the levels.csv columns under the
// same snake_case names, with the same rounding, plus the client's health.
// An undefined figure is null. The err_<class> columns are grouped in
// "errors": {"http_4xx": 0, ...}.
type LevelJSON struct {
	Concurrency          int             `json:"concurrency"`
	RequestsOK           int             `json:"requests_ok"`
	RequestsFailed       int             `json:"requests_failed"`
	TTFTP50Ms            *float64        `json:"ttft_p50_ms"`
	TTFTP95Ms            *float64        `json:"ttft_p95_ms"`
	TTFTP99Ms            *float64        `json:"ttft_p99_ms"`
	DecodeTPSP50         *float64        `json:"decode_tps_p50"`
	DecodeTPSP10         *float64        `json:"decode_tps_p10"`
	DecodeTPSMean        *float64        `json:"decode_tps_mean"`
	E2ETPSP50            *float64        `json:"e2e_tps_p50"`
	E2ETPSMean           *float64        `json:"e2e_tps_mean"`
	ITLP50Ms             *float64        `json:"itl_p50_ms"`
	ITLP99Ms             *float64        `json:"itl_p99_ms"`
	ITLMaxMs             *float64        `json:"itl_max_ms"`
	AggregateOutputTPS   *float64        `json:"aggregate_output_tps"`
	AggregateTotalTPS    *float64        `json:"aggregate_total_tps"`
	RequestsPerS         *float64        `json:"requests_per_s"`
	TokenSource          TokenSource     `json:"token_source"`
	EndReason            sweep.EndReason `json:"end_reason"`
	Repeat               int             `json:"repeat"`
	WindowS              *float64        `json:"window_s"`
	WindowFallback       bool            `json:"window_fallback"`
	InflightMean         *float64        `json:"inflight_mean"`
	TTFCP50Ms            *float64        `json:"ttfc_p50_ms"`
	CompletionTokensMean *float64        `json:"completion_tokens_mean"`
	CompletionTokensMin  *int            `json:"completion_tokens_min"`
	CompletionTokensMax  *int            `json:"completion_tokens_max"`
	FinishStop           int             `json:"finish_stop"`
	FinishLength         int             `json:"finish_length"`
	TokenCountMismatch   int             `json:"token_count_mismatch"`
	Errors               ErrorCounts     `json:"errors"`
	ClientLimited        bool            `json:"client_limited"`
	ClientLimitedReason  string          `json:"client_limited_reason"`
	E2ETPSP10            *float64        `json:"e2e_tps_p10"`
	SLOPass              *bool           `json:"slo_pass"`
	SLOFailed            string          `json:"slo_failed"`
	Health               sweep.Health    `json:"health"`
	ServerJSON                           // the server_* columns, null when not scraped
	// ServerMetrics is what the server_* columns were computed from, kept
	// like health so that a saved run can be re-summarised; absent when
	// the server was not scraped.
	ServerMetrics *promscrape.LevelMetrics `json:"server_metrics,omitempty"`
}

// NewLevelJSON converts a level's figures for summary.json.
func NewLevelJSON(s LevelStats) LevelJSON {
	okInt := func(n int) *int {
		if s.RequestsOK == 0 {
			return nil
		}
		return &n
	}
	return LevelJSON{
		Concurrency:          s.Concurrency,
		RequestsOK:           s.RequestsOK,
		RequestsFailed:       s.RequestsFailed,
		TTFTP50Ms:            msJSON(s.TTFTP50),
		TTFTP95Ms:            msJSON(s.TTFTP95),
		TTFTP99Ms:            msJSON(s.TTFTP99),
		DecodeTPSP50:         rounded(s.DecodeTPSP50, tpsDecimals),
		DecodeTPSP10:         rounded(s.DecodeTPSP10, tpsDecimals),
		DecodeTPSMean:        rounded(s.DecodeTPSMean, tpsDecimals),
		E2ETPSP50:            rounded(s.E2ETPSP50, tpsDecimals),
		E2ETPSMean:           rounded(s.E2ETPSMean, tpsDecimals),
		ITLP50Ms:             msJSON(s.ITLP50),
		ITLP99Ms:             msJSON(s.ITLP99),
		ITLMaxMs:             msJSON(s.ITLMax),
		AggregateOutputTPS:   rounded(s.AggregateOutputTPS, tpsDecimals),
		AggregateTotalTPS:    rounded(s.AggregateTotalTPS, tpsDecimals),
		RequestsPerS:         rounded(s.RequestsPerS, rpsDecimals),
		TokenSource:          s.TokenSource,
		EndReason:            s.EndReason,
		Repeat:               s.Repeat,
		WindowS:              rounded(s.windowSeconds(), tpsDecimals),
		WindowFallback:       s.WindowFallback,
		InflightMean:         rounded(s.InflightMean, tpsDecimals),
		TTFCP50Ms:            msJSON(s.TTFCP50),
		CompletionTokensMean: rounded(s.CompletionTokensMean, tpsDecimals),
		CompletionTokensMin:  okInt(s.CompletionTokensMin),
		CompletionTokensMax:  okInt(s.CompletionTokensMax),
		FinishStop:           s.FinishStop,
		FinishLength:         s.FinishLength,
		TokenCountMismatch:   s.TokenCountMismatch,
		Errors:               s.Errors,
		ClientLimited:        s.ClientLimited,
		ClientLimitedReason:  s.ClientLimitedReason,
		E2ETPSP10:            rounded(s.E2ETPSP10, tpsDecimals),
		SLOPass:              sloPass(s.SLO),
		SLOFailed:            sloFailed(s.SLO),
		Health:               s.Health,
		ServerJSON:           s.Server.json(),
		ServerMetrics:        s.Server.Raw,
	}
}

func sloPass(r *SLOResult) *bool {
	if r == nil {
		return nil
	}
	return &r.Pass
}

func sloFailed(r *SLOResult) string { return sloCells(r)[1] }

// WriteSummaryJSON writes s as indented JSON followed by a newline.
func WriteSummaryJSON(w io.Writer, s Summary) error {
	if s.Levels == nil {
		s.Levels = []LevelJSON{} // "levels": [] rather than null
	}
	if s.Metrics == "" {
		s.Metrics = MetricsDoc
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// rounded rounds v to the given decimals (as levels.csv prints it), nil for
// NaN: encoding/json cannot represent NaN.
func rounded(v float64, decimals int) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	scale := math.Pow10(decimals)
	r := math.Round(v*scale) / scale
	return &r
}

func msJSON(d time.Duration) *float64 { return rounded(ms(d), msDecimals) }
