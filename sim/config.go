package sim

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/toksweep/toksweep/internal/tokcount"
)

// Config describes one simulated server: what it serves, how fast its model
// runs, and which failures it injects. Start from a Preset and adjust fields;
// New fills the zero values noted below and rejects the rest of the invalid
// ones.
type Config struct {
	Model       string // served model name; "sim" when empty
	MaxModelLen int    // context window (prompt + completion tokens); > 0
	MaxNumSeqs  int    // cap on the running batch; further requests wait FCFS; > 0
	// KVCacheTokens is the KV cache's capacity, in tokens, paged into
	// blocks of BlockSize. A request is admitted only when there are blocks
	// for its prompt (beyond its cached prefix); when a running sequence
	// cannot get a block, the newest one is preempted. It must hold one
	// MaxModelLen sequence. 0 means MaxNumSeqs full-length sequences
	// (MaxNumSeqs×MaxModelLen rounded up to whole blocks), which never
	// preempts.
	KVCacheTokens int
	// MaxNumBatchedTokens is the token budget of one step, shared by the
	// decode tokens (one per running sequence) and prefill chunks: a prompt
	// longer than what is left is prefilled over several steps that also
	// decode the batch (chunked prefill). 0 means no budget: every prompt is
	// prefilled whole in the step that admits it, stalling the batch for
	// that long. When set, at least MaxNumSeqs, as in vLLM.
	MaxNumBatchedTokens int
	// NoPrefixCaching turns prefix caching off. With it on (the default),
	// full blocks of prompt tokens stay cached after their request, and a
	// later prompt that starts with the same tokens skips their prefill.
	NoPrefixCaching bool
	// Adapters are LoRA adapters served beside Model: a request naming one
	// runs on the base model at the adapter's cost (Adapter.Cost).
	Adapters []Adapter
	// StepCliff multiplies the time of every step past a KV size (cliff.go);
	// the zero value is none.
	StepCliff StepCliff

	// PrefillTokensPerSec is the prefill rate: admitting a request adds
	// prompt_tokens/PrefillTokensPerSec to the step it is admitted in. > 0.
	PrefillTokensPerSec float64
	// PrefillBase is a fixed cost added to every step that computes any
	// prompt tokens (a server's per-prefill overhead, as
	// llm-d-inference-sim's --prefill-overhead). 0 means none, as in the
	// presets.
	PrefillBase  time.Duration
	DecodeBase   time.Duration // fixed cost of every step
	DecodePerSeq time.Duration // cost per running sequence per step
	// DecodePerCtxToken is the cost per token of context (prompt plus
	// generated so far, summed over the batch) per step. It is what makes
	// long outputs slower than short ones. Its resolution is 1ns, which is
	// enough because it is always multiplied by hundreds of tokens or more;
	// TimeScale is applied in floating point.
	DecodePerCtxToken time.Duration
	// RequestOverhead and RequestOverheadPerToken (per prompt token) delay
	// each request before it joins the queue, holding no batch slot: a
	// server's own time that does not stall the batch (a fitted model's
	// request_overhead). 0 means none (overhead.go).
	RequestOverhead, RequestOverheadPerToken time.Duration
	// RequestOverheadPerSeq and RequestOverheadPerTokenPerSeq (per prompt
	// token) add to that delay per other request the server holds when it
	// arrives (in its overhead, queued or running), counting at most
	// MaxNumSeqs−1: a server whose own per-request work slows with the
	// batch it joins (a frontend shared by every running stream,
	// llm-d-inference-sim's --time-factor-under-load). 0 means none.
	RequestOverheadPerSeq, RequestOverheadPerTokenPerSeq time.Duration
	// PromptTokenScale multiplies the simulator's count of a text prompt
	// (PromptTokens, ChatPromptTokens): a fitted model's server counts
	// its prompts with its own tokenizer, scale × toksweep's rule of
	// thumb, and charges prefill and KV for that many (tokens.go,
	// scaleIDs). A prompt of token ids is not scaled. 0 means 1.
	PromptTokenScale float64
	// Jitter is the relative standard deviation of the step time: each step
	// is multiplied by 1+Jitter×N(0,1) (clamped at 0.1). 0 means none; < 1.
	Jitter float64
	// TimeScale multiplies every modelled duration (and divides the prefill
	// rate), so a scaled server is a faster or slower copy of the same
	// model: a rate measured against it, multiplied by TimeScale, is the
	// unscaled rate. Tests use it to check long calibration runs quickly.
	// 0 means 1.
	TimeScale float64

	// ReasoningShare (0..1) is the share of each chat completion's output
	// tokens sent as reasoning, before the content: the first
	// floor(ReasoningShare×completion_tokens) tokens go in
	// delta[ReasoningField] (message[ReasoningField] when not streaming).
	// The completions API has no reasoning field and sends everything as text.
	ReasoningShare float64
	// ReasoningField is "reasoning_content" (the default) or "reasoning".
	ReasoningField string
	// TokensPerChunk is the number of tokens each running sequence emits per
	// step, sent as one SSE event (like a server that batches its stream
	// writes). 0 means 1.
	TokensPerChunk int
	// EOSAfter makes every request stop naturally (finish_reason "stop")
	// after this many tokens, or after min_tokens if that is larger, unless
	// ignore_eos is set or max_tokens comes first (finish_reason "length").
	// 0 means the model never emits EOS and always generates max_tokens.
	EOSAfter int

	// ErrorRate500 is the share of requests answered at once with an
	// injected HTTP 500.
	ErrorRate500 float64
	// QueueLimit429 makes the server answer HTTP 429 when this many
	// requests already wait without a free batch slot. 0 means no limit.
	QueueLimit429 int
	// DisconnectRate is the share of streams cut half way: the server
	// drops the connection without a final chunk or [DONE].
	DisconnectRate float64
	// MalformedRate is the share of streams that get one truncated,
	// unparsable JSON event half way, then continue normally.
	MalformedRate float64

	// StampSendTime adds "x_sent_unix_ns" (wall-clock Unix nanoseconds
	// taken just before the write) to every SSE event's JSON. Every preset
	// sets it; a zero Config leaves it off.
	StampSendTime bool
	// RecordArrivals keeps the wall-clock instant each generation request
	// reached its handler (Server.Arrivals), up to MaxArrivals of them:
	// the server's own account of when a load generator sent.
	RecordArrivals bool
	// Seed seeds the generators behind failure injection, jitter and the
	// drafter.
	Seed int64

	// GPU telemetry, served at /gpu/metrics in dcgm-exporter's shape (see
	// gpu.go): GPUs devices (0 means 1), each drawing GPUIdleWatts plus
	// GPUWattsPerSeq per sequence in the running batch, and using
	// GPUBaseMiB plus GPUKVMiB × the KV cache's usage of its memory. Both
	// watts 0 mean 90 W idle and 8 W per sequence; both MiB 0 mean 40 GiB
	// resident and 30 GiB of KV cache.
	GPUs                         int
	GPUIdleWatts, GPUWattsPerSeq float64
	GPUBaseMiB, GPUKVMiB         float64
	// GPUNoEnergyCounter leaves DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION out,
	// as some GPUs do: a reader must then integrate the power.
	GPUNoEnergyCounter bool

	// DraftTokens, when > 0, simulates speculative decoding: every decode
	// step of a sequence verifies DraftTokens draft tokens, each accepted
	// independently with probability DraftAcceptance (so that accepted /
	// draft tokens tends to it), and emits 1 + the accepted ones, counted
	// in vllm:spec_decode_*. It needs TokensPerChunk 1.
	DraftTokens     int
	DraftAcceptance float64
}

// Adapter is a LoRA adapter, served as a model name of its own beside the
// base model (/v1/models lists it with the base as its parent).
type Adapter struct {
	Name string
	// Cost is what the adapter costs relative to the base model, ≥ 1 (0
	// means 1: a name only). Each prefill token of its requests costs Cost
	// times a base one, and every step in which at least one of its
	// requests runs lasts Cost−1 of the step's decode part longer (its
	// weights read and its kernels run once per step however many of its
	// requests run, as batched multi-LoRA kernels do). Adapters add up: a
	// step running adapters a and b lasts (1 + (Cost_a−1) + (Cost_b−1)) ×
	// its decode part.
	Cost float64
}

// The values a Config may name in ReasoningField.
const (
	ReasoningContent = "reasoning_content" // vLLM's older field, and DeepSeek's
	ReasoningPlain   = "reasoning"         // vLLM's newer field
)

// withDefaults returns c with its documented zero-value defaults filled in.
func (c Config) withDefaults() Config {
	if c.Model == "" {
		c.Model = "sim"
	}
	if c.KVCacheTokens == 0 {
		c.KVCacheTokens = c.MaxNumSeqs * blocksFor(c.MaxModelLen) * BlockSize
	}
	if c.TimeScale == 0 {
		c.TimeScale = 1
	}
	if len(c.Adapters) > 0 {
		c.Adapters = slices.Clone(c.Adapters) // the caller's slice stays as it was
		for i := range c.Adapters {
			c.Adapters[i].Cost = cmp.Or(c.Adapters[i].Cost, 1)
		}
	}
	if c.ReasoningField == "" {
		c.ReasoningField = ReasoningContent
	}
	if c.TokensPerChunk == 0 {
		c.TokensPerChunk = 1
	}
	if c.GPUs == 0 {
		c.GPUs = 1
	}
	if c.GPUIdleWatts == 0 && c.GPUWattsPerSeq == 0 {
		c.GPUIdleWatts, c.GPUWattsPerSeq = 90, 8
	}
	if c.GPUBaseMiB == 0 && c.GPUKVMiB == 0 {
		c.GPUBaseMiB, c.GPUKVMiB = 40960, 30720
	}
	return c
}

// validate reports every invalid field of c (after withDefaults) at once.
func (c Config) validate() error {
	var errs []string
	bad := func(cond bool, format string, args ...any) {
		if cond {
			errs = append(errs, fmt.Sprintf(format, args...))
		}
	}
	bad(c.MaxModelLen < 1, "MaxModelLen must be at least 1, got %d", c.MaxModelLen)
	bad(c.MaxNumSeqs < 1, "MaxNumSeqs must be at least 1, got %d", c.MaxNumSeqs)
	bad(c.KVCacheTokens/BlockSize < blocksFor(c.MaxModelLen),
		"KVCacheTokens must hold one MaxModelLen sequence (%d tokens in blocks of %d), got %d",
		blocksFor(c.MaxModelLen)*BlockSize, BlockSize, c.KVCacheTokens)
	bad(c.MaxNumBatchedTokens != 0 && c.MaxNumBatchedTokens < c.MaxNumSeqs,
		"MaxNumBatchedTokens must be 0 (no budget) or at least MaxNumSeqs (%d), got %d", c.MaxNumSeqs, c.MaxNumBatchedTokens)
	bad(!(c.PrefillTokensPerSec > 0) || math.IsInf(c.PrefillTokensPerSec, 0),
		"PrefillTokensPerSec must be positive and finite, got %g", c.PrefillTokensPerSec)
	bad(c.DecodeBase < 0 || c.DecodePerSeq < 0 || c.DecodePerCtxToken < 0 || c.PrefillBase < 0,
		"decode and prefill durations must not be negative")
	bad(c.DecodeBase+c.DecodePerSeq <= 0, "DecodeBase+DecodePerSeq must be positive (a step cannot be free)")
	bad(c.RequestOverhead < 0 || c.RequestOverheadPerToken < 0 || c.RequestOverheadPerSeq < 0 || c.RequestOverheadPerTokenPerSeq < 0,
		"RequestOverhead and its per-token and per-sequence parts must not be negative")
	bad(!(c.PromptTokenScale == 0 || c.PromptTokenScale >= MinPromptTokenScale && c.PromptTokenScale <= MaxPromptTokenScale),
		"PromptTokenScale must be 0 (none) or from %g to %g, got %g", MinPromptTokenScale, MaxPromptTokenScale, c.PromptTokenScale)
	bad(!(c.Jitter >= 0 && c.Jitter < 1), "Jitter must be in [0, 1), got %g", c.Jitter)
	bad(!(c.TimeScale > 0) || math.IsInf(c.TimeScale, 0), "TimeScale must be positive, got %g", c.TimeScale)
	bad(c.ReasoningField != ReasoningContent && c.ReasoningField != ReasoningPlain,
		"ReasoningField must be %q or %q, got %q", ReasoningContent, ReasoningPlain, c.ReasoningField)
	bad(c.TokensPerChunk < 1, "TokensPerChunk must be at least 1, got %d", c.TokensPerChunk)
	bad(c.EOSAfter < 0, "EOSAfter must not be negative, got %d", c.EOSAfter)
	bad(c.QueueLimit429 < 0, "QueueLimit429 must not be negative, got %d", c.QueueLimit429)
	bad(c.GPUs < 1, "GPUs must be at least 1, got %d", c.GPUs)
	if msg := c.StepCliff.check(); msg != "" {
		errs = append(errs, msg)
	}
	names := map[string]bool{c.Model: true}
	for _, a := range c.Adapters {
		bad(a.Name == "" || names[a.Name], "an adapter's name must be set and differ from the model's and the other adapters', got %q", a.Name)
		bad(!(a.Cost >= 1) || math.IsInf(a.Cost, 0), "adapter %q: Cost must be at least 1 and finite, got %g", a.Name, a.Cost)
		names[a.Name] = true
	}
	for _, v := range []float64{c.GPUIdleWatts, c.GPUWattsPerSeq, c.GPUBaseMiB, c.GPUKVMiB} {
		bad(!(v >= 0) || math.IsInf(v, 0), "the GPU model's watts and MiB must be finite and not negative, got %g", v)
	}
	bad(c.DraftTokens < 0, "DraftTokens must not be negative, got %d", c.DraftTokens)
	bad(c.DraftTokens > 0 && c.TokensPerChunk != 1, "DraftTokens needs TokensPerChunk 1, got %d", c.TokensPerChunk)
	bad(!(c.DraftAcceptance >= 0 && c.DraftAcceptance <= 1), "DraftAcceptance must be in [0, 1], got %g", c.DraftAcceptance)
	for _, r := range []struct {
		name string
		v    float64
	}{
		{"ReasoningShare", c.ReasoningShare}, {"ErrorRate500", c.ErrorRate500},
		{"DisconnectRate", c.DisconnectRate}, {"MalformedRate", c.MalformedRate},
	} {
		bad(!(r.v >= 0 && r.v <= 1), "%s must be in [0, 1], got %g", r.name, r.v)
	}
	if len(errs) == 0 {
		return nil
	}
	return errors.New("sim: " + strings.Join(errs, "; ")) // one line: the CLI prints it as it is
}

// PromptTokens is the simulator's token count for a plain prompt:
// ceil(1.3 × the number of whitespace-separated words), at least 1
// (tokcount.Prompt). The 1.3 is the usual rule of thumb for English under
// BPE tokenizers.
func PromptTokens(text string) int { return tokcount.Prompt(text) }

// ChatPromptTokens is the simulator's token count for a chat conversation
// given its message contents: ceil(1.3 × the words over all contents) plus
// tokcount.ChatMessageOverhead per message, at least 1 (tokcount.Chat).
func ChatPromptTokens(contents ...string) int { return tokcount.Chat(contents...) }
