package report

import (
	"bytes"
	"encoding/json"
	"github.com/toksweep/toksweep/workload/trace"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/toksweep/toksweep/client/promscrape"
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
	// API key).
	Config *RunConfig `json:"config,omitempty"`
	// EndReason is why the run ended: a sweep.EndReason (completed,
	// canceled, aborted) or "failed" when an error stopped it.
	EndReason string `json:"end_reason"`
	// EndError is the error that ended a "failed" run, in one line with
	// the run's secrets scrubbed; empty otherwise.
	EndError string      `json:"end_error,omitempty"`
	Levels   []LevelJSON `json:"levels"`
	// Metrics names the document defining every figure.
	Metrics string `json:"metrics"`
	// Recommendation is the capacity answer (SLO verdict and knee), set
	// when the run finished at least one level.
	Recommendation *RecommendationJSON `json:"recommendation,omitempty"`
	// Tiers is the tier table (--slo-tier): one answer per tier, set with
	// Recommendation; absent for a run without tiers.
	Tiers []TierJSON `json:"tiers,omitempty"`
	// TierSearch is the cost of an adaptive search over the tiers: its
	// levels and load-seconds against one search per tier's.
	TierSearch *TierSearchJSON `json:"tier_search,omitempty"`
	// Trace is the replayed trace's summary (--trace), before any replay.
	Trace *trace.Summary `json:"trace,omitempty"`
	// ReplaySalt is the salt of a replay's prompts, drawn per run (from
	// --seed when given), so that no run finds another's blocks cached.
	ReplaySalt *uint64 `json:"replay_salt,omitempty"`
	// SimModel is the model a --sim --sim-model run served, and Grading
	// its predictions against the levels it was fitted on (simmodel.go).
	SimModel *SimModelJSON `json:"sim_model,omitempty"`
	Grading  []GradeJSON   `json:"grading,omitempty"`
	// Predictions are the run's levels with their 80% intervals.
	Predictions []PredictionJSON `json:"predictions,omitempty"`
	// Twin is the model-steered search's account (--twin; twin.go); its
	// steered levels' predictions are in Grading.
	Twin *TwinJSON `json:"twin,omitempty"`
}

// RecommendationJSON is Recommendation in summary.json. Each answer is
// its level's columns (docs/metrics.md, summary.json): *Concurrency its
// concurrency (a closed loop's C, an open loop's cap; null when zero),
// and, for an open-loop answer, *Rate its rate (the nominal offered rate,
// a replay's speed).
type RecommendationJSON struct {
	SLO                    string `json:"slo,omitempty"`
	RecommendedConcurrency *int   `json:"recommended_concurrency"`
	// RecommendedOutputTPS is the recommended level's aggregate output
	// tok/s, whatever its mode; null when no level is recommended.
	RecommendedOutputTPS *float64 `json:"recommended_aggregate_output_tps"`
	FirstFailConcurrency *int     `json:"first_fail_concurrency"`
	FirstFailReasons     []string `json:"first_fail_reasons,omitempty"`
	KneeConcurrency      *int     `json:"knee_concurrency"`
	// ExcludedConcurrency lists the levels left out of the knee and the
	// recommendation (report.Untrusted); the sentence says why.
	ExcludedConcurrency []int  `json:"excluded_concurrency,omitempty"`
	Sentence            string `json:"sentence"`
	// Open loop: the answers' rate column, the nominal offered rate
	// (req/s; a replay's speed).
	RecommendedRate *float64  `json:"recommended_rate,omitempty"`
	FirstFailRate   *float64  `json:"first_fail_rate,omitempty"`
	KneeRate        *float64  `json:"knee_rate,omitempty"`
	ExcludedRate    []float64 `json:"excluded_rate,omitempty"`
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
		RecommendedConcurrency: nz(r.Recommended.Concurrency), FirstFailConcurrency: nz(r.FirstFail.Concurrency),
		FirstFailReasons: r.FirstFailWhy, KneeConcurrency: nz(r.Knee.Concurrency), Sentence: r.Sentence(stats),
	}
	if r.SLO.Set() {
		j.SLO = r.SLO.String()
	}
	for _, e := range r.Excluded {
		if e.Key.IsOpen() {
			j.ExcludedRate = append(j.ExcludedRate, e.Key.Load)
		} else {
			j.ExcludedConcurrency = append(j.ExcludedConcurrency, e.Key.Concurrency)
		}
	}
	j.RecommendedRate, j.FirstFailRate, j.KneeRate = openLoad(r.Recommended), openLoad(r.FirstFail), openLoad(r.Knee)
	if !r.Recommended.IsZero() { // any mode's answer: the sentence quotes it too
		j.RecommendedOutputTPS = rounded(r.RecommendedTPS, tpsDecimals)
	}
	return j
}

// openLoad is an open-loop answer's load, for summary.json's *_rate
// fields; nil for a closed-loop answer or none.
func openLoad(k sweep.LevelKey) *float64 {
	if !k.IsOpen() {
		return nil
	}
	v := k.Load
	return &v
}

// MetricsDoc is the default Summary.Metrics: where the figures are defined.
const MetricsDoc = "docs/metrics.md"

// LevelJSON is one level in summary.json. It is written from Columns: the
// levels.csv columns under the same snake_case names, with the same
// rounding, the err_<class> counts grouped as "errors": {"http_4xx": 0,
// ...}, the client's health and, when the server was scraped, its raw
// metrics. An undefined figure is null. The typed fields are how a reader
// (ReadRunDir, compare, the benchmark tools) sees the level: a column a
// reader does not need has no field here, and is still written.
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
	// Rate keys an open-loop level (null, read as 0, in a closed loop); the
	// goodput figures are restored with the SLO verdict they belong to.
	Rate         float64  `json:"rate"`
	GoodputRPS   *float64 `json:"goodput_rps"`
	GoodputRatio *float64 `json:"goodput_ratio"`

	// Classes are the level's class rows (--class), each a level object
	// of the class's requests with its "class" name; absent without
	// classes.
	Classes []LevelJSON `json:"classes,omitempty"`
	Class   string      `json:"class,omitempty"`

	written json.RawMessage // the object NewLevelJSON built from Columns
}

// NewLevelJSON converts a level's figures for summary.json: every column of
// Columns written to JSON, in order.
func NewLevelJSON(s LevelStats) LevelJSON {
	b := levelObject(&s)
	var l LevelJSON
	if err := json.Unmarshal(b, &l); err != nil {
		panic("report: LevelJSON cannot read its own column: " + err.Error()) // TestJSONFollowsColumns
	}
	l.written = b
	return l
}

// MarshalJSON writes the object NewLevelJSON built; a LevelJSON read from
// a file (or built by hand) is written field by field.
func (l LevelJSON) MarshalJSON() ([]byte, error) {
	if l.written != nil {
		return l.written, nil
	}
	type fields LevelJSON // without this method
	return json.Marshal(fields(l))
}

var jsonColumns = ColumnsIn(InJSON)

// levelObject is the JSON object of s: its JSON columns in order.
func levelObject(s *LevelStats) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for _, c := range jsonColumns {
		v := c.Value(s)
		if c.omitEmpty && v.kind == noValue {
			continue
		}
		key, err := json.Marshal(c.Name)
		if err == nil {
			var val []byte
			if val, err = json.Marshal(v.json(c.Decimals)); err == nil {
				if b.Len() > 1 {
					b.WriteByte(',')
				}
				b.Write(key)
				b.WriteByte(':')
				b.Write(val)
				continue
			}
		}
		panic("report: column " + c.Name + " is not JSON: " + err.Error()) // the registry's own values always are
	}
	for _, name := range slices.Sorted(maps.Keys(s.Extra)) { // --percentiles
		key, _ := json.Marshal(name)
		val, err := json.Marshal(number(s.Extra[name]).json(msDecimals))
		if err != nil {
			panic("report: column " + name + " is not JSON: " + err.Error())
		}
		b.WriteByte(',')
		b.Write(key)
		b.WriteByte(':')
		b.Write(val)
	}
	if len(s.Classes) > 0 {
		b.WriteString(`,"classes":[`)
		for i := range s.Classes {
			if i > 0 {
				b.WriteByte(',')
			}
			name, _ := json.Marshal(s.Classes[i].Class)
			b.WriteString(`{"class":`)
			b.Write(name)
			b.WriteByte(',')
			b.Write(levelObject(&s.Classes[i])[1:])
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.Bytes()
}

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
