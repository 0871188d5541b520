package report

import (
	"time"

	"github.com/toksweep/toksweep/client"
)

// RunConfig is the configuration of a sweep as summary.json records it
// ("config"), already redacted by whoever fills it (no API key,
// credential-like header values replaced). It is written and read as this
// one struct, so compare and report read fields, never keys.
//
// A field that was not set is absent (omitempty or a nil pointer); no
// field uses a sentinel value. Runs saved before AutoMax existed recorded
// --auto-max as the single entry of Levels (with LevelsAuto); those files
// are read, and re-rendered, as written. So are runs saved before Mode:
// their levels' mode is recovered from their records and settings
// (sweep.ClaimMode), as it was.
type RunConfig struct {
	URL string `json:"url"`
	// MetricsURL and GPUMetricsURLs are --metrics-url and
	// --gpu-metrics-url, their credentials redacted as URL's are.
	MetricsURL     string            `json:"metrics_url,omitempty"`
	GPUMetricsURLs []string          `json:"gpu_metrics_urls,omitempty"`
	Sim            bool              `json:"sim,omitempty"`
	SimPreset      string            `json:"sim_preset,omitempty"`
	Model          string            `json:"model"`
	API            client.API        `json:"api"`
	Mode           string            `json:"mode,omitempty"`        // the load mode that ran the levels, its registered name (sweep.Mode.Name)
	Levels         []int             `json:"levels,omitempty"`      // the fixed levels; absent with --levels auto
	LevelsAuto     bool              `json:"levels_auto,omitempty"` // --levels auto: an adaptive search
	AutoMax        int               `json:"auto_max,omitempty"`    // --levels auto: the highest level it may reach
	SLO            *SLOConfig        `json:"slo,omitempty"`
	SLOTiers       []TierConfig      `json:"slo_tiers,omitempty"` // --slo-tier, in the order given
	Requests       int               `json:"requests"`            // 0: auto (or unbounded with Duration alone)
	Duration       string            `json:"duration,omitempty"`
	Warmup         int               `json:"warmup"`
	Repeat         int               `json:"repeat"`
	MaxTokens      int               `json:"max_tokens"`
	Temperature    *float64          `json:"temperature"` // null: not sent
	PromptSource   string            `json:"prompt_source"`
	ExtraBody      map[string]any    `json:"extra_body,omitempty"` // numbers as json.Number, as written
	APIKeySet      bool              `json:"api_key_set"`
	Headers        map[string]string `json:"headers,omitempty"`
	RequestTimeout string            `json:"request_timeout"`
	ConnectTimeout string            `json:"connect_timeout"`
	Insecure       bool              `json:"insecure"`
	OpenLoop       *OpenLoopConfig   `json:"open_loop,omitempty"`
	Percentiles    []float64         `json:"percentiles,omitempty"` // --percentiles: extra columns (report.ExtraPercentileColumns)
	// ReadingSpeed is --reading-speed in tok/s; absent at the default ReadingSpeed.
	ReadingSpeed float64 `json:"reading_speed,omitempty"`
	// Classes are the traffic classes (--class, --classes), in order.
	Classes []ClassConfig `json:"classes,omitempty"`
}

// ClassConfig is a traffic class as summary.json's config records it:
// its share (normalised), model, headers (redacted as Headers are) and
// its own SLO (absent: the run's).
type ClassConfig struct {
	Name    string            `json:"name"`
	Share   float64           `json:"share"`
	Model   string            `json:"model,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	SLO     *SLOConfig        `json:"slo,omitempty"`
	Dataset string            `json:"dataset,omitempty"` // dataset=: the class's own prompts
}

// classNames are the classes' names; nil without classes.
func (c *RunConfig) classNames() []string {
	var names []string
	for _, cl := range c.Classes {
		names = append(names, cl.Name)
	}
	return names
}

// ClassSLOs are the classes' SLOs, each its own or else base (the run's).
func (c *RunConfig) ClassSLOs(base SLO) []ClassSLO {
	var out []ClassSLO
	for _, cl := range c.Classes {
		o := base
		if cl.SLO != nil {
			o, _ = (&RunConfig{SLO: cl.SLO}).Objective()
		}
		o.Classes = nil
		out = append(out, ClassSLO{Name: cl.Name, SLO: o})
	}
	return out
}

// OpenLoopConfig is an open-loop sweep's arrivals (sweep --rates) as
// summary.json records them; nil for a closed loop.
type OpenLoopConfig struct {
	Rates          []float64 `json:"rates"`
	Auto           bool      `json:"auto,omitempty"` // --rates auto: the rates were searched
	Arrival        string    `json:"arrival"`
	Burstiness     float64   `json:"burstiness,omitempty"`
	Seed           int64     `json:"seed"`
	MaxConcurrency int       `json:"max_concurrency,omitempty"`
}

// SLOConfig is the SLO as summary.json records it, so that a saved run can
// be judged again (toksweep report draws the SLO line from it).
type SLOConfig struct {
	DecodeTPS float64  `json:"decode_tps,omitempty"`
	E2ETPS    float64  `json:"e2e_tps,omitempty"`
	TTFTP95Ms float64  `json:"ttft_p95_ms,omitempty"`
	ErrorRate *float64 `json:"error_rate,omitempty"`
	MaxGapMs  float64  `json:"max_gap_p95_ms,omitempty"`
	TPOTP99Ms float64  `json:"tpot_p99_ms,omitempty"`
	E2EP95Ms  float64  `json:"e2e_latency_p95_ms,omitempty"`
}

// NewSLOConfig records o; nil when o sets no criterion.
func NewSLOConfig(o SLO) *SLOConfig {
	o.Classes = nil // the classes' SLOs are recorded with them (ClassConfig)
	if !o.Set() {
		return nil
	}
	return &SLOConfig{DecodeTPS: o.DecodeTPS, E2ETPS: o.E2ETPS,
		TTFTP95Ms: float64(o.TTFTP95) / float64(time.Millisecond), ErrorRate: o.ErrorRate,
		MaxGapMs:  float64(o.MaxGapP95) / float64(time.Millisecond),
		TPOTP99Ms: float64(o.TPOTP99) / float64(time.Millisecond),
		E2EP95Ms:  float64(o.E2EP95) / float64(time.Millisecond)}
}

// Objective is the SLO the run was judged by; ok is false when it had none.
func (c *RunConfig) Objective() (o SLO, ok bool) {
	if c == nil {
		return SLO{}, false
	}
	if len(c.Classes) > 0 {
		base, _ := (&RunConfig{SLO: c.SLO}).Objective()
		base.Classes = c.ClassSLOs(base)
		return base, base.Set()
	}
	if c.SLO == nil {
		return SLO{}, false
	}
	s := c.SLO
	return SLO{DecodeTPS: s.DecodeTPS, E2ETPS: s.E2ETPS,
		TTFTP95: time.Duration(s.TTFTP95Ms * float64(time.Millisecond)), ErrorRate: s.ErrorRate,
		MaxGapP95: time.Duration(s.MaxGapMs * float64(time.Millisecond)),
		TPOTP99:   time.Duration(s.TPOTP99Ms * float64(time.Millisecond)),
		E2EP95:    time.Duration(s.E2EP95Ms * float64(time.Millisecond))}, true
}
