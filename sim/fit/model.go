package fit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/toksweep/toksweep/sim"
)

// Format names model.json's layout; Load refuses any other.
const Format = "toksweep-model/1"

// maxPrefillRate stands for a prefill the fit found free (a per-token cost
// of 0), which sim.Config cannot hold as an infinite rate.
const maxPrefillRate = 1e12

// Model is a fitted server: the simulator's parameters with their
// intervals, how well they reproduce each level, and what the data could
// not tell. Sim is what it sets in a sim.Config (Apply).
type Model struct {
	Format   string   `json:"format"`
	Runs     []string `json:"runs,omitempty"` // the run directories it was fitted from
	Interval string   `json:"interval"`       // how Lo and Hi were computed
	// Steps and IdleFirst count the rows fitted: decode steps, and first
	// tokens of requests sent to an idle server. Stamped counts the levels
	// read on the server's send stamps rather than the client's arrivals.
	Steps         int        `json:"steps"`
	IdleFirst     int        `json:"idle_first_tokens"`
	Stamped       int        `json:"stamped_levels"`
	Params        []Param    `json:"params"`
	Levels        []Residual `json:"levels"`
	NotIdentified []string   `json:"not_identified,omitempty"`
	// Poor is PoorFit's sentences: the levels the step model cannot
	// represent (poor.go).
	Poor []string  `json:"poor_fit,omitempty"`
	Sim  SimParams `json:"sim"`
	// Calibration is the range fitted, which predictions are checked
	// against; nil in a model set by hand (not checked).
	Calibration *Calibration `json:"calibration,omitempty"`
	// Measured is each fitted level's figures, that a prediction of the
	// same level is graded against.
	Measured []Measured `json:"measured,omitempty"`
	// Draws are simulator parameters of the bootstrap's refits, that a
	// prediction's interval is read under (predict.go).
	Draws []SimParams `json:"draws,omitempty"`
}

// Param is one fitted parameter. Durations are in nanoseconds.
type Param struct {
	Name       string   `json:"name"`
	Unit       string   `json:"unit"`
	Doc        string   `json:"doc"`
	Value      float64  `json:"value"`
	Lo         *float64 `json:"lo,omitempty"` // the interval; nil when not identified or counted
	Hi         *float64 `json:"hi,omitempty"`
	Identified bool     `json:"identified"`
	InSim      bool     `json:"in_sim"`            // a step parameter (the request's overhead is not: the fit may leave it out)
	Counted    string   `json:"counted,omitempty"` // how a counted (not fitted) parameter was found
}

// Residual is how the fitted step times compare with one level's measured
// ones: the mean decode step, measured and fitted, the relative bias of the
// mean, and the root-mean-square of each block's relative residual
// (blockSteps steps of one request).
type Residual struct {
	Level      string  `json:"level"`
	Steps      int     `json:"steps"`
	Skipped    int     `json:"skipped,omitempty"` // intervals longer than a step could be (preemption, a stall)
	HitShare   float64 `json:"hit_share,omitempty"`
	MeasuredNs float64 `json:"measured_ns"`
	FittedNs   float64 `json:"fitted_ns"`
	Bias       float64 `json:"bias"`
	RMS        float64 `json:"rms"`
}

// MarshalJSON writes NaN figures (a level with no rows) as null.
func (r Residual) MarshalJSON() ([]byte, error) {
	type plain Residual
	if math.IsNaN(r.MeasuredNs) {
		return json.Marshal(struct {
			Level string `json:"level"`
			Steps int    `json:"steps"`
		}{r.Level, r.Steps})
	}
	return json.Marshal(plain(r))
}

// SimParams are the sim.Config fields a model sets; a nil field leaves the
// preset's value.
type SimParams struct {
	PrefillBaseNs       *float64 `json:"prefill_base_ns,omitempty"`
	PrefillTokensPerSec *float64 `json:"prefill_tokens_per_sec,omitempty"`
	DecodeBaseNs        *float64 `json:"decode_base_ns,omitempty"`
	DecodePerSeqNs      *float64 `json:"decode_per_seq_ns,omitempty"`
	DecodePerCtxTokenNs *float64 `json:"decode_per_ctx_token_ns,omitempty"`
	MaxNumSeqs          *int     `json:"max_num_seqs,omitempty"`
	// The request's overhead, a delay before it queues that holds no slot
	// (sim.Config.RequestOverhead); nil when the fit left it out.
	RequestOverheadNs         *float64 `json:"request_overhead_ns,omitempty"`
	RequestOverheadPerTokenNs *float64 `json:"request_overhead_per_token_ns,omitempty"`
	// Their growth per other request held (sim.Config.RequestOverheadPerSeq);
	// nil when the fit left it out.
	RequestOverheadPerSeqNs         *float64 `json:"request_overhead_per_seq_ns,omitempty"`
	RequestOverheadPerTokenPerSeqNs *float64 `json:"request_overhead_per_token_per_seq_ns,omitempty"`
	// PromptTokenScale is the server's prompt tokens per token of
	// toksweep's count (sim.Config.PromptTokenScale); nil when not
	// measured (1).
	PromptTokenScale *float64 `json:"prompt_token_scale,omitempty"`
}

type paramInfo struct{ name, unit, doc string }

func paramOf(c int) paramInfo {
	return [nCols]paramInfo{
		colDecodeBase:     {"decode_base", "ns/step", "fixed cost of every step"},
		colPerCtx:         {"decode_per_ctx_token", "ns/token", "step cost per token of context in the batch"},
		colPerSeq:         {"decode_per_seq", "ns/seq", "step cost per running sequence"},
		colPrefillTok:     {"prefill_per_token", "ns/token", "step cost per prompt token prefilled (cached ones free)"},
		colPrefillBase:    {"prefill_base", "ns/step", "fixed cost of a step that prefills"},
		colOverhead:       {"request_overhead", "ns", "a request's own time to its first token beyond the step (served as a delay before it queues)"},
		colOverheadTok:    {"request_overhead_per_token", "ns/token", "the part of it per prompt token (sending, tokenizing, a prefill that stalls no batch)"},
		colOverheadSeq:    {"request_overhead_per_seq", "ns/seq", "its growth per other request held (at most max_num_seqs−1): own work that slows with the batch it joins"},
		colOverheadTokSeq: {"request_overhead_per_token_per_seq", "ns/token/seq", "the per-token part's growth per other request held"},
	}[c]
}

// setSim fills m.Sim from the fitted values: every decode cost (0 where it
// is folded into another), the prefill costs unless no prefill was seen,
// and the slot limit.
func (m *Model) setSim(kept []int) {
	param := func(name string) Param {
		for _, p := range m.Params {
			if p.Name == name {
				return p
			}
		}
		return Param{}
	}
	val := func(name string) float64 { return param(name).Value }
	ptr := func(v float64) *float64 { return &v }
	keptCol := func(c int) bool {
		for _, k := range kept {
			if k == c {
				return true
			}
		}
		return false
	}
	m.Sim.DecodeBaseNs = ptr(val("decode_base"))
	m.Sim.DecodePerSeqNs = ptr(val("decode_per_seq"))
	m.Sim.DecodePerCtxTokenNs = ptr(val("decode_per_ctx_token"))
	if keptCol(colPrefillTok) || keptCol(colPrefillBase) {
		m.Sim.PrefillBaseNs = ptr(val("prefill_base"))
		rate := maxPrefillRate
		if v := val("prefill_per_token"); v > 1e9/maxPrefillRate {
			rate = 1e9 / v
		}
		m.Sim.PrefillTokensPerSec = ptr(rate)
	}
	n := int(val("max_num_seqs"))
	m.Sim.MaxNumSeqs = &n
	if keptCol(colOverhead) || keptCol(colOverheadTok) || keptCol(colOverheadSeq) || keptCol(colOverheadTokSeq) {
		m.Sim.RequestOverheadNs = ptr(val("request_overhead"))
		m.Sim.RequestOverheadPerTokenNs = ptr(val("request_overhead_per_token"))
	}
	if keptCol(colOverheadSeq) || keptCol(colOverheadTokSeq) {
		m.Sim.RequestOverheadPerSeqNs = ptr(val("request_overhead_per_seq"))
		m.Sim.RequestOverheadPerTokenPerSeqNs = ptr(val("request_overhead_per_token_per_seq"))
	}
	if p := param(promptScaleName); p.Identified {
		m.Sim.PromptTokenScale = ptr(p.Value)
	}
}

// Apply sets the model's parameters in cfg, leaving every other field (the
// model name, context window, jitter, failure injection) as it is.
func (m Model) Apply(cfg *sim.Config) {
	dur := func(dst *time.Duration, v *float64) {
		if v != nil {
			*dst = time.Duration(math.Round(*v))
		}
	}
	dur(&cfg.PrefillBase, m.Sim.PrefillBaseNs)
	dur(&cfg.DecodeBase, m.Sim.DecodeBaseNs)
	dur(&cfg.DecodePerSeq, m.Sim.DecodePerSeqNs)
	dur(&cfg.DecodePerCtxToken, m.Sim.DecodePerCtxTokenNs)
	dur(&cfg.RequestOverhead, m.Sim.RequestOverheadNs)
	dur(&cfg.RequestOverheadPerToken, m.Sim.RequestOverheadPerTokenNs)
	dur(&cfg.RequestOverheadPerSeq, m.Sim.RequestOverheadPerSeqNs)
	dur(&cfg.RequestOverheadPerTokenPerSeq, m.Sim.RequestOverheadPerTokenPerSeqNs)
	if v := m.Sim.PrefillTokensPerSec; v != nil {
		cfg.PrefillTokensPerSec = *v
	}
	if v := m.Sim.PromptTokenScale; v != nil {
		cfg.PromptTokenScale = *v
	}
	if v := m.Sim.MaxNumSeqs; v != nil {
		// A KV cache of the preset's default size (room for MaxNumSeqs
		// full-length sequences) follows the new slot count.
		if cfg.KVCacheTokens == cfg.MaxNumSeqs*fullBlocks(cfg.MaxModelLen) {
			cfg.KVCacheTokens = *v * fullBlocks(cfg.MaxModelLen)
		}
		cfg.MaxNumSeqs = *v
	}
}

// fullBlocks is n tokens rounded up to whole KV blocks.
func fullBlocks(n int) int { return (n + sim.BlockSize - 1) / sim.BlockSize * sim.BlockSize }

// WriteJSON writes m as indented JSON, as model.json holds it.
func (m Model) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}

// Read reads a model.json: its format must be Format, and its simulator
// parameters finite and in range (a positive prefill rate and slot count,
// no negative duration, a step that is not free).
func Read(r io.Reader) (Model, error) {
	var m Model
	b, err := io.ReadAll(io.LimitReader(r, 16<<20))
	if err != nil {
		return m, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return m, fmt.Errorf("not a toksweep model: %w", err)
	}
	if m.Format != Format {
		return m, fmt.Errorf("format %q, want %q (a file written by 'toksweep fit')", m.Format, Format)
	}
	if err := m.Sim.check(); err != nil {
		return m, err
	}
	return m, m.Sim.runnable()
}

// runnable says why the parameters are not a fitted model's: without a
// decode step cost (one 'toksweep fit' did not write), a simulator would
// silently serve the preset's step under the model's name.
func (s SimParams) runnable() error {
	if s.DecodeBaseNs == nil && s.DecodePerSeqNs == nil {
		return errors.New("no sim.decode_base_ns: not a model 'toksweep fit' wrote (its step would be the preset's)")
	}
	return nil
}

func (s SimParams) check() error {
	var errs []error
	for _, d := range []struct {
		name string
		v    *float64
	}{{"prefill_base_ns", s.PrefillBaseNs}, {"decode_base_ns", s.DecodeBaseNs}, {"decode_per_seq_ns", s.DecodePerSeqNs}, {"decode_per_ctx_token_ns", s.DecodePerCtxTokenNs},
		{"request_overhead_ns", s.RequestOverheadNs}, {"request_overhead_per_token_ns", s.RequestOverheadPerTokenNs},
		{"request_overhead_per_seq_ns", s.RequestOverheadPerSeqNs}, {"request_overhead_per_token_per_seq_ns", s.RequestOverheadPerTokenPerSeqNs}} {
		if d.v != nil && !(*d.v >= 0 && *d.v < float64(time.Hour)) {
			errs = append(errs, fmt.Errorf("sim.%s %g: want a duration in ns from 0 to an hour", d.name, *d.v))
		}
	}
	if v := s.PrefillTokensPerSec; v != nil && !(*v > 0 && *v <= maxPrefillRate) {
		errs = append(errs, fmt.Errorf("sim.prefill_tokens_per_sec %g: want a rate above 0, at most %g", *v, float64(maxPrefillRate)))
	}
	if v := s.PromptTokenScale; v != nil && !(*v >= sim.MinPromptTokenScale && *v <= sim.MaxPromptTokenScale) {
		errs = append(errs, fmt.Errorf("sim.prompt_token_scale %g: want %g to %g", *v, sim.MinPromptTokenScale, sim.MaxPromptTokenScale))
	}
	if v := s.MaxNumSeqs; v != nil && (*v < 1 || *v > 1<<20) {
		errs = append(errs, fmt.Errorf("sim.max_num_seqs %d: want 1 to %d", *v, 1<<20))
	}
	return errors.Join(errs...)
}
