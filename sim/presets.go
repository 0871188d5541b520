package sim

import (
	"fmt"
	"slices"
	"time"
)

// EssayPrompt is the user message of the calibration story
// (shared/seed/precision-under-pressure.txt): the prompt behind the
// 2048-token, 76.2 tok/s end-to-end measurement of Kimi-K2.5 INT4. It is 24
// words, so ChatPromptTokens(EssayPrompt) = ceil(24×1.3)+4 = 36 tokens.
const EssayPrompt = "Write a very long and detailed essay about the history of computing, " +
	"from Charles Babbage to modern AI. Include at least 10 major milestones."

// presetBatchedTokens is the step token budget of every preset: vLLM's
// --max-num-batched-tokens default for its API server on large-memory GPUs.
// The presets' prompts are short, so it only matters for long prompts (and
// the figures below are unchanged by it). No preset limits the KV cache:
// KVCacheTokens defaults to room for MaxNumSeqs full-length sequences.
const presetBatchedTokens = 8192

// preset is one named Config with the line that describes it.
type preset struct {
	name string
	doc  string
	cfg  Config
}

// presets are kept in the order PresetNames lists them.
var presets = []preset{
	{
		name: "fast",
		doc:  "for tests: 1ms steps, 16 slots, no jitter; a small sweep finishes in a second or two",
		cfg: Config{
			Model:               "sim-fast",
			MaxModelLen:         4096,
			MaxNumSeqs:          16,
			PrefillTokensPerSec: 1e6,
			DecodeBase:          time.Millisecond,
			DecodePerSeq:        20 * time.Microsecond,
			DecodePerCtxToken:   1 * time.Nanosecond,
			MaxNumBatchedTokens: presetBatchedTokens,
		},
	},
	{
		// The README demo: `toksweep sweep --sim` runs levels
		// 1,2,4,8,16,32,64 with max(8, 4×C) requests of 128 output tokens
		// each. With the 36-token essay prompt, a step with B sequences
		// takes about 3ms + 0.15ms×B + 20ns×B×(36+64), so per stream
		// 1/3.15ms ≈ 317 tok/s at C=1 falling to 1/7.86ms ≈ 127 tok/s at
		// B=32, while the aggregate rises 317 → 600 → 1090 → 1850 → 2830 →
		// 3850 tok/s and stays there at C=64, where half the requests
		// queue a whole generation (~1s of TTFT). A step-by-step model of
		// the closed loop gives level times of 3.2, 1.7, 1.9, 2.2, 2.9,
		// 4.3 and 8.5s: about 25s for the sweep, plus the client's
		// overhead and warm-up.
		name: "default",
		doc:  "README demo: 32 slots, ~317 tok/s per stream alone, ~3850 tok/s aggregate at 32+, queueing at 64",
		cfg: Config{
			Model:               "sim-default",
			MaxModelLen:         8192,
			MaxNumSeqs:          32,
			PrefillTokensPerSec: 20000,
			DecodeBase:          3 * time.Millisecond,
			DecodePerSeq:        150 * time.Microsecond,
			DecodePerCtxToken:   20 * time.Nanosecond,
			Jitter:              0.02,
			MaxNumBatchedTokens: presetBatchedTokens,
		},
	},
	{
		// Calibrated to the seed story: 81 tok/s single-stream decode
		// rate with 512-token outputs, and 2048 tokens end to end in
		// 26.87s (76.2 tok/s), both with the 36-token EssayPrompt (P).
		//
		// Step k of a lone request (k = 1..N) lasts a + c×(k−1), where
		// c = DecodePerCtxToken and a = base + per_seq + c×P; step 1 also
		// carries the prefill f = P/prefill_rate.
		//
		//   decode rate (N=512): (N−1) / Σ_{k=2..N} d_k = 1/(a + c×N/2)
		//       → a + 256c = 1/81 s = 12.3457ms
		//   end to end (N=2048): T = f + N×a + c×N(N−1)/2
		//       = f + 2048×(12.3457ms − 256c) + 2096128c
		//       = f + 25.2840s + 1571840c = 26.8766s (2048/76.2)
		//       → f + 1571840c = 1.5926s
		//
		// With prefill at 3000 tok/s, f = 36/3000 = 12ms, so c = 1.006µs;
		// round to c = 1µs. Then a = 12.3457 − 0.256 = 12.090ms, and with
		// per_seq = 0.1ms, base = 12.090 − 0.1 − 0.036 = 11.954ms; round
		// to 11.95ms. Check: a = 12.086ms, decode rate
		// 511/(511×12.086ms + 130816×1µs) = 511/6.3068s = 81.02 tok/s;
		// T = 12ms + 2048×12.086ms + 2096128×1µs = 26.860s → 76.25 tok/s;
		// TTFT = f + a = 24.1ms. Jitter 2% averages out over hundreds of
		// steps. Half of each output is reasoning, as in the story.
		//
		// Prefix caching: a repeat of the prompt finds its first two
		// blocks (32 of the 36 tokens) cached, so its f is 4/3000 s =
		// 1.3ms and its TTFT 13.4ms; the end-to-end time loses 10.7ms of
		// 26.86s (0.04%), and the decode rate does not change.
		name: "kimi-k2.5-int4-8gpu-pcie",
		doc:  "Kimi-K2.5 INT4 on 8 PCIe GPUs as in the seed story: 81 tok/s decode (512 tokens), 76.2 tok/s end to end (2048)",
		cfg: Config{
			Model:               "/shared/kimi-k2.5-int4",
			MaxModelLen:         262144,
			MaxNumSeqs:          64,
			PrefillTokensPerSec: 3000,
			DecodeBase:          11950 * time.Microsecond,
			DecodePerSeq:        100 * time.Microsecond,
			DecodePerCtxToken:   1 * time.Microsecond,
			Jitter:              0.02,
			ReasoningShare:      0.5,
			ReasoningField:      ReasoningContent,
			MaxNumBatchedTokens: presetBatchedTokens,
			GPUs:                8,
		},
	},
}

// PresetNames lists the presets' names in a stable order.
func PresetNames() []string {
	names := make([]string, len(presets))
	for i, p := range presets {
		names[i] = p.name
	}
	return names
}

// PresetDoc returns the one-line description of the named preset, or "" if
// there is none.
func PresetDoc(name string) string {
	if i := presetIndex(name); i >= 0 {
		return presets[i].doc
	}
	return ""
}

// Preset returns the named preset's Config, with StampSendTime on and the
// documented defaults filled in.
func Preset(name string) (Config, error) {
	i := presetIndex(name)
	if i < 0 {
		return Config{}, fmt.Errorf("sim: unknown preset %q (have %v)", name, PresetNames())
	}
	c := presets[i].cfg
	c.StampSendTime = true
	return c.withDefaults(), nil
}

func presetIndex(name string) int {
	return slices.IndexFunc(presets, func(p preset) bool { return p.name == name })
}
