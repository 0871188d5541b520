package fit

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Measured is one fitted level's figures as its run measured them, for
// grading a prediction of the same level: its key (mode, concurrency, load
// as sweep.LevelKey), its workload, and the graded figures by their
// levels.csv names (GradedFigures; a figure the level has no value for is
// absent).
type Measured struct {
	Level        string             `json:"level"`
	Mode         string             `json:"mode"`
	Concurrency  int                `json:"concurrency,omitempty"`
	Load         float64            `json:"load,omitempty"`
	PromptMean   float64            `json:"prompt_tokens_mean"`
	OutputMean   float64            `json:"output_tokens_mean"`
	InflightMean float64            `json:"inflight_mean"`
	RequestsPerS float64            `json:"requests_per_s"`
	Figures      map[string]float64 `json:"figures"`
}

// GradedFigures are the figures a prediction is graded on, by their
// levels.csv names.
var GradedFigures = []string{"ttft_p50_ms", "ttft_p95_ms", "tpot_p50_ms", "decode_tps_p50", "aggregate_output_tps"}

// Calibration is the range the model was fitted on: a prediction outside
// it is an extrapolation (Calibration.Check).
type Calibration struct {
	MaxConcurrency int     `json:"max_concurrency"` // largest concurrency (or cap) of a level
	MaxRate        float64 `json:"max_rate"`        // largest offered rate (an open loop's load), req/s
	MaxInflight    float64 `json:"max_inflight"`    // largest mean in flight of a level
	MaxRequestsPS  float64 `json:"max_requests_per_s"`
	MaxPrompt      int     `json:"max_prompt_tokens"`
	MinOutput      int     `json:"min_output_tokens"`
	MaxOutput      int     `json:"max_output_tokens"`
	// SlotsKnown says the batch-slot limit was identified; without it a
	// load beyond the measured one may queue where the model does not.
	SlotsKnown bool `json:"slots_identified"`
	// IllConditioned says why the fit is too loose to predict from; empty
	// when it is not.
	IllConditioned []string `json:"ill_conditioned,omitempty"`
}

// The extrapolation bounds: a load beyond LoadFactor × the largest measured
// one (the largest itself when the slot limit is not identified), a
// prompt or an output target beyond LengthFactor × the longest measured,
// and a parameter whose interval moves its steps by more than
// maxSpread are refused by default.
const (
	LoadFactor   = 2
	LengthFactor = 2
	maxSpread    = 0.25
)

// Asked is what a run of the model asks for: its levels' concurrencies
// (a closed loop's workers, sessions), its offered rates, its longest
// prompt and its largest output target, in tokens.
type Asked struct {
	Concurrency []int
	Rates       []float64
	MaxPrompt   int
	MaxOutput   int
}

// Check lists each way a run asking for a goes beyond the calibration, one
// sentence each naming the bound, the ill-conditioned fit's first; empty
// when it does not.
func (c Calibration) Check(a Asked) []string {
	var out []string
	for _, r := range c.IllConditioned {
		out = append(out, "the fit is ill-conditioned: "+r)
	}
	factor, why := c.Reach()
	load := math.Max(float64(c.MaxConcurrency), c.MaxInflight)
	if n := maxOf(a.Concurrency); n > 0 && float64(n) > factor*load+1e-9 {
		out = append(out, fmt.Sprintf("concurrency %d is beyond %s the largest measured load (%s in flight)", n, why, trim(load)))
	}
	rate := math.Max(c.MaxRate, c.MaxRequestsPS)
	for _, r := range a.Rates {
		if r > factor*rate*(1+1e-9) {
			out = append(out, fmt.Sprintf("rate %s req/s is beyond %s the largest measured rate (%s req/s)", trim(r), why, trim(rate)))
			break
		}
	}
	if a.MaxPrompt > LengthFactor*c.MaxPrompt {
		out = append(out, fmt.Sprintf("a prompt of %d tokens is beyond %d× the longest measured (%d)", a.MaxPrompt, LengthFactor, c.MaxPrompt))
	}
	if a.MaxOutput > LengthFactor*c.MaxOutput {
		out = append(out, fmt.Sprintf("an output of %d tokens is beyond %d× the longest measured (%d)", a.MaxOutput, LengthFactor, c.MaxOutput))
	}
	return out
}

// Reach is how far past its largest measured load a run of the model is
// trusted, and those words: LoadFactor×, or 1× when the batch-slot limit
// was not identified (past the load measured, the queueing is unknown).
func (c Calibration) Reach() (factor float64, words string) {
	if !c.SlotsKnown {
		return 1, "1× (the batch-slot limit was not identified)"
	}
	return LoadFactor, strconv.Itoa(LoadFactor) + "×"
}

func maxOf(v []int) int {
	m := 0
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

func trim(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

// calibration is the range of the fitted levels, and the reasons the fit is
// ill-conditioned: a simulator parameter not identified (the slot limit
// aside, which bounds the load instead), or one whose interval moves the
// rows it is part of by more than maxSpread.
func (f *fitter) calibration(m *Model) Calibration {
	var c Calibration
	c.MinOutput = math.MaxInt
	for _, l := range f.levels {
		if ms := l.Measured; ms != nil {
			c.MaxConcurrency = max(c.MaxConcurrency, ms.Concurrency)
			c.MaxRate = math.Max(c.MaxRate, ms.Load)
			c.MaxInflight = math.Max(c.MaxInflight, ms.InflightMean)
			c.MaxRequestsPS = math.Max(c.MaxRequestsPS, ms.RequestsPerS)
		}
		for i := range l.Records {
			r := &l.Records[i]
			if r.OK() && !r.Warmup {
				c.MaxPrompt = max(c.MaxPrompt, r.PromptTokens)
				c.MinOutput = min(c.MinOutput, r.OutputTokens())
				c.MaxOutput = max(c.MaxOutput, r.OutputTokens())
			}
		}
	}
	if c.MinOutput == math.MaxInt {
		c.MinOutput = 0
	}
	for _, p := range m.Params {
		switch {
		case p.Name == "max_num_seqs":
			c.SlotsKnown = p.Identified
		case p.Name == promptScaleName:
			// a count, not a cost: without it (runs saved before
			// prompt_estimate) the model counts prompts as toksweep does
		case p.InSim && !p.Identified:
			c.IllConditioned = append(c.IllConditioned, p.Name+" is not identified")
		case p.InSim && p.Lo != nil:
			if s := f.spread(p); s > maxSpread {
				c.IllConditioned = append(c.IllConditioned, fmt.Sprintf("%s's 80%% interval (%s – %s) moves the steps it is part of by %.0f%%",
					p.Name, fmtValue(p.Unit, *p.Lo), fmtValue(p.Unit, *p.Hi), 100*s))
			}
		}
	}
	return c
}

// spread is how far p's interval moves the rows it is part of: (hi − lo)
// × their sum of its regressor over their summed duration.
func (f *fitter) spread(p Param) float64 {
	c := -1
	for k := range nCols {
		if paramOf(k).name == p.Name {
			c = k
		}
	}
	if c < 0 {
		return 0
	}
	var x, y float64
	for _, d := range f.data {
		for _, r := range d.rows {
			if r.x[c] > 0 {
				x += r.x[c]
				y += r.y
			}
		}
	}
	if y == 0 {
		return 0
	}
	return (*p.Hi - *p.Lo) * x / y
}

// Params is the model's simulator parameters by their model.json names,
// for a run's summary.json.
func (s SimParams) Params() map[string]float64 {
	out := map[string]float64{}
	for name, v := range map[string]*float64{"prefill_base_ns": s.PrefillBaseNs, "prefill_tokens_per_sec": s.PrefillTokensPerSec,
		"decode_base_ns": s.DecodeBaseNs, "decode_per_seq_ns": s.DecodePerSeqNs, "decode_per_ctx_token_ns": s.DecodePerCtxTokenNs,
		"request_overhead_ns": s.RequestOverheadNs, "request_overhead_per_token_ns": s.RequestOverheadPerTokenNs,
		"request_overhead_per_seq_ns": s.RequestOverheadPerSeqNs, "request_overhead_per_token_per_seq_ns": s.RequestOverheadPerTokenPerSeqNs} {
		if v != nil {
			out[name] = *v
		}
	}
	if s.MaxNumSeqs != nil {
		out["max_num_seqs"] = float64(*s.MaxNumSeqs)
	}
	return out
}

// Caution is the line a run past the calibration carries (console and
// summary.json): each bound it went past.
func Caution(reasons []string) string {
	return "an extrapolation (--allow-extrapolation): " + strings.Join(reasons, "; ")
}
