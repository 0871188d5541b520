package app

import (
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/sim"
)

// simOptions are the serve-sim flags, named after them. A model flag's
// field is nil when the flag is absent: the preset's value then stands.
type simOptions struct {
	Addr                string
	Preset              string
	SimModel            string // --sim-model: a model file from 'toksweep fit', set over the preset
	AllowExtrapolation  bool   // --allow-extrapolation: serve an ill-conditioned --sim-model
	Model               *string
	Adapters            []string // --adapter NAME[:COST], repeatable
	Cliff               string   // --cliff TOKENS:FACTOR
	MaxModelLen         *int
	MaxNumSeqs          *int
	PrefillRate         *float64
	KVCacheTokens       *int
	MaxNumBatchedTokens *int
	NoPrefixCaching     *bool
	DecodeBase          *time.Duration
	DecodePerSeq        *time.Duration
	DecodePerCtxToken   *time.Duration
	Jitter              *float64
	ReasoningShare      *float64
	ReasoningField      *string
	TokensPerChunk      *int
	EOSAfter            *int
	ErrorRate           *float64
	QueueLimit          *int
	DisconnectRate      *float64
	MalformedRate       *float64
	Seed                *int64
	GPUs                *int
	GPUIdleWatts        *float64
	GPUWattsPerSeq      *float64
	GPUNoEnergyCounter  *bool
	DraftTokens         *int
	DraftAcceptance     *float64
}

func serveSimCommand(stderr io.Writer) *cli.Command {
	return simCommand(func(ctx context.Context, addr string, cfg sim.Config) error { return serveSim(ctx, addr, cfg, stderr) })
}

// simCommand is serve-sim with its flags turned into a configuration and
// handed to serve (serveSim; a test's own, to see the configuration).
func simCommand(serve func(ctx context.Context, addr string, cfg sim.Config) error) *cli.Command {
	o := &simOptions{}
	var record bool
	flags := append(simFlags(o), &cli.BoolFlag{Name: "record-arrivals", Destination: &record,
		Usage: fmt.Sprintf("keep when each generation request arrived (up to %d) and serve them at GET /debug/arrivals as wall-clock Unix nanoseconds, to check a load generator's schedule against", sim.MaxArrivals)})
	return &cli.Command{
		Name:         "serve-sim",
		Usage:        "serve the built-in vLLM-like simulator until interrupted",
		UsageText:    "toksweep serve-sim [--addr 127.0.0.1:8000] [--preset NAME] [model flags]",
		Description:  "Presets:\n" + presetList(),
		Flags:        flags,
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			cfg, err := o.simConfig(c.App.ErrWriter)
			if err != nil {
				return err
			}
			cfg.RecordArrivals = record
			return serve(c.Context, o.Addr, cfg)
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

func simFlags(o *simOptions) []cli.Flag {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "addr", Value: "127.0.0.1:8000", Destination: &o.Addr, Usage: "listen address"},
		&cli.StringFlag{Name: "preset", Value: defaultSimPreset, Destination: &o.Preset, Usage: "starting parameters: " + strings.Join(sim.PresetNames(), ", ")},
		&cli.StringFlag{Name: "sim-model", Destination: &o.SimModel, Usage: "a model fitted by 'toksweep fit' (model.json): its parameters replace the preset's, and the model flags below replace both"},
		&cli.BoolFlag{Name: "allow-extrapolation", Destination: &o.AllowExtrapolation, Usage: "serve a --sim-model whose fit is ill-conditioned or poor, with a caution"},
		&cli.StringFlag{Name: "model", Action: into(&o.Model), Usage: "served model name"},
		&cli.StringSliceFlag{Name: "adapter", Action: func(_ *cli.Context, v []string) error { o.Adapters = v; return nil }, Usage: adapterUsage},
		&cli.IntFlag{Name: "max-model-len", Action: into(&o.MaxModelLen), Usage: "context window, prompt + completion tokens"},
		&cli.IntFlag{Name: "max-num-seqs", Action: into(&o.MaxNumSeqs), Usage: "running batch cap; further requests queue by priority (a body's \"priority\" or an x-priority header, lower first), then FCFS"},
		&cli.Float64Flag{Name: "prefill-rate", Action: into(&o.PrefillRate), Usage: "prefill tokens per second (a prefill chunk lengthens its whole step)"},
		&cli.IntFlag{Name: "kv-cache-tokens", Action: into(&o.KVCacheTokens), Usage: "KV cache capacity in tokens (blocks of 16); running out preempts the newest of the lowest priority (preset: room for max-num-seqs full-length sequences)"},
		&cli.IntFlag{Name: "max-num-batched-tokens", Action: into(&o.MaxNumBatchedTokens), Usage: "token budget per step, decode tokens plus prefill chunks (chunked prefill; 0: whole prompts)"},
		&cli.BoolFlag{Name: "no-prefix-caching", Action: into(&o.NoPrefixCaching), Usage: "turn prefix caching off"},
		&cli.DurationFlag{Name: "decode-base", Action: into(&o.DecodeBase), Usage: "fixed cost of every decode step"},
		&cli.DurationFlag{Name: "decode-per-seq", Action: into(&o.DecodePerSeq), Usage: "step cost per running sequence"},
		&cli.DurationFlag{Name: "decode-per-ctx-token", Action: into(&o.DecodePerCtxToken), Usage: "step cost per token of context in the batch"},
		&cli.Float64Flag{Name: "jitter", Action: into(&o.Jitter), Usage: "relative stddev of the step time"},
		&cli.Float64Flag{Name: "reasoning-share", Action: into(&o.ReasoningShare), Usage: "share of chat output sent as reasoning, before the content"},
		&cli.StringFlag{Name: "reasoning-field", Action: into(&o.ReasoningField), Usage: "reasoning_content or reasoning"},
		&cli.IntFlag{Name: "tokens-per-chunk", Action: into(&o.TokensPerChunk), Usage: "tokens per SSE event"},
		&cli.IntFlag{Name: "eos-after", Action: into(&o.EOSAfter), Usage: "stop naturally after this many tokens (0: always max_tokens)"},
		&cli.Float64Flag{Name: "error-rate", Action: into(&o.ErrorRate), Usage: "share of requests answered with HTTP 500"},
		&cli.IntFlag{Name: "queue-limit", Action: into(&o.QueueLimit), Usage: "answer 429 when this many requests already wait (0: off)"},
		&cli.Float64Flag{Name: "disconnect-rate", Action: into(&o.DisconnectRate), Usage: "share of streams cut mid-way"},
		&cli.Float64Flag{Name: "malformed-rate", Action: into(&o.MalformedRate), Usage: "share of streams with one malformed chunk"},
		&cli.Int64Flag{Name: "seed", Action: into(&o.Seed), Usage: "seed for failure injection, jitter and the drafter"},
		&cli.IntFlag{Name: "gpus", Action: into(&o.GPUs), Usage: "simulated GPUs at /gpu/metrics (dcgm-exporter's names)"},
		&cli.Float64Flag{Name: "gpu-idle-watts", Action: into(&o.GPUIdleWatts), Usage: "each GPU's power with an empty batch"},
		&cli.Float64Flag{Name: "gpu-watts-per-seq", Action: into(&o.GPUWattsPerSeq), Usage: "each GPU's power per running sequence, above idle"},
		&cli.BoolFlag{Name: "gpu-no-energy-counter", Action: into(&o.GPUNoEnergyCounter), Usage: "leave the GPUs' energy counter out of /gpu/metrics"},
		&cli.IntFlag{Name: "draft-tokens", Action: into(&o.DraftTokens), Usage: "speculative decoding: draft tokens verified per decode step (0: off)"},
		&cli.Float64Flag{Name: "draft-acceptance", Action: into(&o.DraftAcceptance), Usage: "speculative decoding: the chance each draft token is accepted"},
	}
	// The model flags override the preset; their default is the preset's value.
	for _, f := range flags[4:] {
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
	// No preset has a cliff.
	return append(flags, &cli.StringFlag{Name: "cliff", Destination: &o.Cliff, DefaultText: "none", Usage: cliffUsage})
}

// simConfig starts from the preset and applies the flags that were given.
func (o *simOptions) simConfig(stderr io.Writer) (sim.Config, error) {
	cfg, err := sim.Preset(o.Preset)
	if err != nil {
		return cfg, usagef("invalid --preset %q: want one of %s", o.Preset, strings.Join(sim.PresetNames(), ", "))
	}
	if err := serveModel(o.SimModel, o.AllowExtrapolation, &cfg, stderr); err != nil {
		return cfg, err
	}
	override(&cfg.Model, o.Model)
	if len(o.Adapters) > 0 {
		if cfg.Adapters, err = parseAdapters("adapter", o.Adapters); err != nil {
			return cfg, err
		}
	}
	if o.Cliff != "" {
		if cfg.StepCliff, err = parseCliff("cliff", o.Cliff); err != nil {
			return cfg, err
		}
	}
	override(&cfg.MaxModelLen, o.MaxModelLen)
	override(&cfg.MaxNumSeqs, o.MaxNumSeqs)
	override(&cfg.PrefillTokensPerSec, o.PrefillRate)
	override(&cfg.KVCacheTokens, o.KVCacheTokens)
	override(&cfg.MaxNumBatchedTokens, o.MaxNumBatchedTokens)
	override(&cfg.NoPrefixCaching, o.NoPrefixCaching)
	override(&cfg.DecodeBase, o.DecodeBase)
	override(&cfg.DecodePerSeq, o.DecodePerSeq)
	override(&cfg.DecodePerCtxToken, o.DecodePerCtxToken)
	override(&cfg.Jitter, o.Jitter)
	override(&cfg.ReasoningShare, o.ReasoningShare)
	override(&cfg.ReasoningField, o.ReasoningField)
	override(&cfg.TokensPerChunk, o.TokensPerChunk)
	override(&cfg.EOSAfter, o.EOSAfter)
	override(&cfg.ErrorRate500, o.ErrorRate)
	override(&cfg.QueueLimit429, o.QueueLimit)
	override(&cfg.DisconnectRate, o.DisconnectRate)
	override(&cfg.MalformedRate, o.MalformedRate)
	override(&cfg.Seed, o.Seed)
	override(&cfg.GPUs, o.GPUs)
	override(&cfg.GPUIdleWatts, o.GPUIdleWatts)
	override(&cfg.GPUWattsPerSeq, o.GPUWattsPerSeq)
	override(&cfg.GPUNoEnergyCounter, o.GPUNoEnergyCounter)
	override(&cfg.DraftTokens, o.DraftTokens)
	override(&cfg.DraftAcceptance, o.DraftAcceptance)
	return cfg, o.check(cfg)
}

// cliffUsage is --cliff's (and sweep's --sim-cliff's) help.
const cliffUsage = "a step-time cliff TOKENS:FACTOR the fitted model cannot represent: every step whose batch holds more than TOKENS tokens of KV lasts FACTOR times its modelled time"

// parseCliff reads a --flag TOKENS:FACTOR value into the simulator's
// step cliff.
func parseCliff(flag, v string) (sim.StepCliff, error) {
	tok, fac, ok := strings.Cut(v, ":")
	n, err1 := strconv.Atoi(tok)
	f, err2 := strconv.ParseFloat(fac, 64)
	if !ok || err1 != nil || err2 != nil || n < 0 || !(f > 0) || math.IsInf(f, 0) {
		return sim.StepCliff{}, usagef("invalid --%s %q: want TOKENS:FACTOR, e.g. 2000:3 (TOKENS ≥ 0, FACTOR a positive number)", flag, v)
	}
	return sim.StepCliff{KVTokens: n, Factor: f}, nil
}

// adapterUsage is --adapter's (and sweep's --sim-adapter's) help.
const adapterUsage = "a LoRA adapter NAME[:COST] served as a model beside the base; COST ≥ 1 (default 1) multiplies its prefill tokens' cost, and each step running it lasts COST−1 of the decode part longer (repeatable)"

// parseAdapters reads --flag NAME[:COST] values into the simulator's
// adapters.
func parseAdapters(flag string, values []string) ([]sim.Adapter, error) {
	var out []sim.Adapter
	for _, v := range values {
		name, cost, hasCost := strings.Cut(strings.TrimSpace(v), ":")
		a := sim.Adapter{Name: name, Cost: 1}
		if hasCost {
			c, err := strconv.ParseFloat(cost, 64)
			if err != nil || !(c >= 1) || math.IsInf(c, 0) {
				return nil, usagef("invalid --%s %q: want NAME[:COST], COST a number ≥ 1 (the adapter's cost relative to the base model)", flag, v)
			}
			a.Cost = c
		}
		if name == "" || slices.ContainsFunc(out, func(b sim.Adapter) bool { return b.Name == name }) {
			return nil, usagef("invalid --%s %q: want NAME[:COST], each NAME given once", flag, v)
		}
		out = append(out, a)
	}
	return out, nil
}

// override sets *dst to the flag's value when the flag was given.
func override[T any](dst *T, given *T) {
	if given != nil {
		*dst = *given
	}
}

// shown is a given flag's value as an error quotes it, "" when the flag
// is absent.
func shown[T any](given *T) string {
	if given == nil {
		return ""
	}
	return fmt.Sprint(*given)
}

// check names the first model flag given a value the simulator refuses,
// and what it accepts. sim.New checks the whole configuration again (and
// the presets), but words its errors for Go callers.
func (o *simOptions) check(cfg sim.Config) error {
	share := func(v float64) bool { return !(v >= 0 && v <= 1) }
	const wantShare = "a share from 0 to 1"
	checks := []struct {
		flag  string
		given string // the value given, "" when the flag is absent
		bad   bool
		want  string
	}{
		{"max-model-len", shown(o.MaxModelLen), cfg.MaxModelLen < 1, "an integer ≥ 1"},
		{"max-num-seqs", shown(o.MaxNumSeqs), cfg.MaxNumSeqs < 1, "an integer ≥ 1"},
		{"kv-cache-tokens", shown(o.KVCacheTokens), cfg.KVCacheTokens < 0, "an integer ≥ 0 (tokens)"},
		{"max-num-batched-tokens", shown(o.MaxNumBatchedTokens), cfg.MaxNumBatchedTokens < 0, "an integer ≥ 0 (0: no chunking)"},
		{"prefill-rate", shown(o.PrefillRate), !(cfg.PrefillTokensPerSec > 0) || math.IsInf(cfg.PrefillTokensPerSec, 0), "a positive rate in tokens per second"},
		{"decode-base", shown(o.DecodeBase), cfg.DecodeBase < 0, "a duration ≥ 0 such as 10ms"},
		{"decode-per-seq", shown(o.DecodePerSeq), cfg.DecodePerSeq < 0, "a duration ≥ 0 such as 200us"},
		{"decode-per-ctx-token", shown(o.DecodePerCtxToken), cfg.DecodePerCtxToken < 0, "a duration ≥ 0 such as 1us"},
		{"jitter", shown(o.Jitter), !(cfg.Jitter >= 0 && cfg.Jitter < 1), "a number from 0 up to (not including) 1"},
		{"reasoning-share", shown(o.ReasoningShare), share(cfg.ReasoningShare), wantShare},
		{"reasoning-field", shown(o.ReasoningField), cfg.ReasoningField != "" && cfg.ReasoningField != sim.ReasoningContent && cfg.ReasoningField != sim.ReasoningPlain,
			sim.ReasoningContent + " or " + sim.ReasoningPlain},
		{"tokens-per-chunk", shown(o.TokensPerChunk), cfg.TokensPerChunk < 0, "an integer ≥ 1"},
		{"eos-after", shown(o.EOSAfter), cfg.EOSAfter < 0, "an integer ≥ 0"},
		{"error-rate", shown(o.ErrorRate), share(cfg.ErrorRate500), wantShare},
		{"queue-limit", shown(o.QueueLimit), cfg.QueueLimit429 < 0, "an integer ≥ 0"},
		{"disconnect-rate", shown(o.DisconnectRate), share(cfg.DisconnectRate), wantShare},
		{"malformed-rate", shown(o.MalformedRate), share(cfg.MalformedRate), wantShare},
		{"gpus", shown(o.GPUs), cfg.GPUs < 1, "an integer ≥ 1"},
		{"gpu-idle-watts", shown(o.GPUIdleWatts), !(cfg.GPUIdleWatts >= 0) || math.IsInf(cfg.GPUIdleWatts, 0), "watts ≥ 0"},
		{"gpu-watts-per-seq", shown(o.GPUWattsPerSeq), !(cfg.GPUWattsPerSeq >= 0) || math.IsInf(cfg.GPUWattsPerSeq, 0), "watts ≥ 0"},
		{"draft-tokens", shown(o.DraftTokens), cfg.DraftTokens < 0 || (cfg.DraftTokens > 0 && cfg.TokensPerChunk > 1), "an integer ≥ 0, with --tokens-per-chunk 1"},
		{"draft-acceptance", shown(o.DraftAcceptance), share(cfg.DraftAcceptance), wantShare},
	}
	for _, ch := range checks {
		if ch.bad && ch.given != "" {
			return usagef("invalid --%s %q: want %s", ch.flag, ch.given, ch.want)
		}
	}
	if (o.DecodeBase != nil || o.DecodePerSeq != nil) && cfg.DecodeBase+cfg.DecodePerSeq <= 0 {
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
	if w := exposedWarning(a); w != "" {
		fmt.Fprintln(stderr, "toksweep: warning: "+w)
	}
	served := fmt.Sprintf("model %q", srv.Config().Model)
	for _, ad := range srv.Config().Adapters {
		served += fmt.Sprintf(", adapter %q (cost %g)", ad.Name, ad.Cost)
	}
	fmt.Fprintf(stderr, "toksweep: simulator serving %s on http://%s/v1 (Ctrl-C to stop)\n", served, a)
	<-ctx.Done()
	if err := srv.Close(); err != nil {
		return err
	}
	fmt.Fprintln(stderr, "toksweep: simulator stopped")
	return nil
}

// exposedWarning is the warning for a listener that other hosts can reach
// (any address but a loopback one: 0.0.0.0, ::, a LAN address); "" on
// loopback, the default.
func exposedWarning(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if ok && tcp.IP.IsLoopback() {
		return ""
	}
	return fmt.Sprintf("the simulator listens on %s: other hosts can reach it (use --addr 127.0.0.1:PORT to keep it local)", a)
}
