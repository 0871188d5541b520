package app

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/sim"
)

func serveSimCommand(stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:         "serve-sim",
		Usage:        "serve the built-in vLLM-like simulator until interrupted",
		UsageText:    "toksweep serve-sim [--addr 127.0.0.1:8000] [--preset NAME] [model flags]",
		Description:  "Presets:\n" + presetList(),
		Flags:        simFlags(),
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			cfg, err := simConfig(c)
			if err != nil {
				return err
			}
			return serveSim(c.Context, c.String("addr"), cfg, stderr)
		},
	}
}

func presetList() string {
	var b strings.Builder
	for _, n := range sim.PresetNames() {
		fmt.Fprintf(&b, "   %-26s %s\n", n, sim.PresetDoc(n))
	}
	return b.String()
}

func simFlags() []cli.Flag {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "addr", Value: "127.0.0.1:8000", Usage: "listen address"},
		&cli.StringFlag{Name: "preset", Value: defaultSimPreset, Usage: "starting parameters: " + strings.Join(sim.PresetNames(), ", ")},
		&cli.StringFlag{Name: "model", Usage: "served model name"},
		&cli.IntFlag{Name: "max-model-len", Usage: "context window, prompt + completion tokens"},
		&cli.IntFlag{Name: "max-num-seqs", Usage: "running batch cap; further requests queue FCFS"},
		&cli.Float64Flag{Name: "prefill-rate", Usage: "prefill tokens per second (a prefill chunk lengthens its whole step)"},
		&cli.IntFlag{Name: "kv-cache-tokens", Usage: "KV cache capacity in tokens (blocks of 16); running out preempts the newest request (preset: room for max-num-seqs full-length sequences)"},
		&cli.IntFlag{Name: "max-num-batched-tokens", Usage: "token budget per step, decode tokens plus prefill chunks (chunked prefill; 0: whole prompts)"},
		&cli.BoolFlag{Name: "no-prefix-caching", Usage: "turn prefix caching off"},
		&cli.DurationFlag{Name: "decode-base", Usage: "fixed cost of every decode step"},
		&cli.DurationFlag{Name: "decode-per-seq", Usage: "step cost per running sequence"},
		&cli.DurationFlag{Name: "decode-per-ctx-token", Usage: "step cost per token of context in the batch"},
		&cli.Float64Flag{Name: "jitter", Usage: "relative stddev of the step time"},
		&cli.Float64Flag{Name: "reasoning-share", Usage: "share of chat output sent as reasoning, before the content"},
		&cli.StringFlag{Name: "reasoning-field", Usage: "reasoning_content or reasoning"},
		&cli.IntFlag{Name: "tokens-per-chunk", Usage: "tokens per SSE event"},
		&cli.IntFlag{Name: "eos-after", Usage: "stop naturally after this many tokens (0: always max_tokens)"},
		&cli.Float64Flag{Name: "error-rate", Usage: "share of requests answered with HTTP 500"},
		&cli.IntFlag{Name: "queue-limit", Usage: "answer 429 when this many requests already wait (0: off)"},
		&cli.Float64Flag{Name: "disconnect-rate", Usage: "share of streams cut mid-way"},
		&cli.Float64Flag{Name: "malformed-rate", Usage: "share of streams with one malformed chunk"},
		&cli.Int64Flag{Name: "seed", Usage: "seed for failure injection and jitter"},
	}
	// The model flags override the preset; their default is the preset's value.
	for _, f := range flags[2:] {
		switch f := f.(type) {
		case *cli.StringFlag:
			f.DefaultText = "preset"
		case *cli.IntFlag:
			f.DefaultText = "preset"
		case *cli.Int64Flag:
			f.DefaultText = "preset"
		case *cli.Float64Flag:
			f.DefaultText = "preset"
		case *cli.DurationFlag:
			f.DefaultText = "preset"
		}
	}
	return flags
}

// simConfig starts from the preset and applies the flags that were given.
func simConfig(c *cli.Context) (sim.Config, error) {
	cfg, err := sim.Preset(c.String("preset"))
	if err != nil {
		return cfg, usagef("invalid --preset %q: want one of %s", c.String("preset"), strings.Join(sim.PresetNames(), ", "))
	}
	set := func(name string, apply func()) {
		if c.IsSet(name) {
			apply()
		}
	}
	set("model", func() { cfg.Model = c.String("model") })
	set("max-model-len", func() { cfg.MaxModelLen = c.Int("max-model-len") })
	set("max-num-seqs", func() { cfg.MaxNumSeqs = c.Int("max-num-seqs") })
	set("prefill-rate", func() { cfg.PrefillTokensPerSec = c.Float64("prefill-rate") })
	set("kv-cache-tokens", func() { cfg.KVCacheTokens = c.Int("kv-cache-tokens") })
	set("max-num-batched-tokens", func() { cfg.MaxNumBatchedTokens = c.Int("max-num-batched-tokens") })
	set("no-prefix-caching", func() { cfg.NoPrefixCaching = c.Bool("no-prefix-caching") })
	set("decode-base", func() { cfg.DecodeBase = c.Duration("decode-base") })
	set("decode-per-seq", func() { cfg.DecodePerSeq = c.Duration("decode-per-seq") })
	set("decode-per-ctx-token", func() { cfg.DecodePerCtxToken = c.Duration("decode-per-ctx-token") })
	set("jitter", func() { cfg.Jitter = c.Float64("jitter") })
	set("reasoning-share", func() { cfg.ReasoningShare = c.Float64("reasoning-share") })
	set("reasoning-field", func() { cfg.ReasoningField = c.String("reasoning-field") })
	set("tokens-per-chunk", func() { cfg.TokensPerChunk = c.Int("tokens-per-chunk") })
	set("eos-after", func() { cfg.EOSAfter = c.Int("eos-after") })
	set("error-rate", func() { cfg.ErrorRate500 = c.Float64("error-rate") })
	set("queue-limit", func() { cfg.QueueLimit429 = c.Int("queue-limit") })
	set("disconnect-rate", func() { cfg.DisconnectRate = c.Float64("disconnect-rate") })
	set("malformed-rate", func() { cfg.MalformedRate = c.Float64("malformed-rate") })
	set("seed", func() { cfg.Seed = c.Int64("seed") })
	return cfg, checkSimFlags(c, cfg)
}

// checkSimFlags names the first model flag given a value the simulator
// refuses, and what it accepts. sim.New checks the whole configuration
// again (and the presets), but words its errors for Go callers.
func checkSimFlags(c *cli.Context, cfg sim.Config) error {
	share := func(v float64) bool { return !(v >= 0 && v <= 1) }
	const wantShare = "a share from 0 to 1"
	checks := []struct {
		flag string
		bad  bool
		want string
	}{
		{"max-model-len", cfg.MaxModelLen < 1, "an integer ≥ 1"},
		{"max-num-seqs", cfg.MaxNumSeqs < 1, "an integer ≥ 1"},
		{"prefill-rate", !(cfg.PrefillTokensPerSec > 0) || math.IsInf(cfg.PrefillTokensPerSec, 0), "a rate > 0 in tokens per second"},
		{"decode-base", cfg.DecodeBase < 0, "a duration ≥ 0 such as 10ms"},
		{"decode-per-seq", cfg.DecodePerSeq < 0, "a duration ≥ 0 such as 200us"},
		{"decode-per-ctx-token", cfg.DecodePerCtxToken < 0, "a duration ≥ 0 such as 1us"},
		{"jitter", !(cfg.Jitter >= 0 && cfg.Jitter < 1), "a number from 0 up to (not including) 1"},
		{"reasoning-share", share(cfg.ReasoningShare), wantShare},
		{"reasoning-field", cfg.ReasoningField != "" && cfg.ReasoningField != sim.ReasoningContent && cfg.ReasoningField != sim.ReasoningPlain,
			sim.ReasoningContent + " or " + sim.ReasoningPlain},
		{"tokens-per-chunk", cfg.TokensPerChunk < 0, "an integer ≥ 1"},
		{"eos-after", cfg.EOSAfter < 0, "an integer ≥ 0"},
		{"error-rate", share(cfg.ErrorRate500), wantShare},
		{"queue-limit", cfg.QueueLimit429 < 0, "an integer ≥ 0"},
		{"disconnect-rate", share(cfg.DisconnectRate), wantShare},
		{"malformed-rate", share(cfg.MalformedRate), wantShare},
	}
	for _, ch := range checks {
		if ch.bad && c.IsSet(ch.flag) {
			return usagef("invalid --%s %q: want %s", ch.flag, fmt.Sprint(c.Value(ch.flag)), ch.want)
		}
	}
	if (c.IsSet("decode-base") || c.IsSet("decode-per-seq")) && cfg.DecodeBase+cfg.DecodePerSeq <= 0 {
		return usagef("--decode-base %v plus --decode-per-seq %v is %v: want a positive sum (a decode step cannot be free)",
			cfg.DecodeBase, cfg.DecodePerSeq, cfg.DecodeBase+cfg.DecodePerSeq)
	}
	return nil
}

// serveSim serves until ctx is canceled (Ctrl-C), then shuts down cleanly.
func serveSim(ctx context.Context, addr string, cfg sim.Config, stderr io.Writer) error {
	srv, err := sim.New(cfg)
	if err != nil {
		return &UsageError{Msg: "invalid simulator settings: " + oneLine(err.Error())}
	}
	a, err := srv.Start(ctx, addr)
	if err != nil {
		return fmt.Errorf("cannot listen on --addr %q: %w", addr, err)
	}
	fmt.Fprintf(stderr, "toksweep: simulator serving model %q on http://%s/v1 (Ctrl-C to stop)\n", srv.Config().Model, a)
	<-ctx.Done()
	if err := srv.Close(); err != nil {
		return err
	}
	fmt.Fprintln(stderr, "toksweep: simulator stopped")
	return nil
}
