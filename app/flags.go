package app

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/mode/rate"
	"github.com/toksweep/toksweep/report/chart"
	"github.com/toksweep/toksweep/sweep"
)

// Defaults that the README documents.
const (
	defaultMaxTokens      = 2048 // the seed story's methodology
	defaultSimMaxTokens   = 128  // --sim without --max-tokens: keeps the demo sweep short
	defaultRequestTimeout = 10 * time.Minute
	defaultConnectTimeout = 10 * time.Second
	defaultSimPreset      = "default"
)

// sweepFlags are the sweep command's flags, bound into o: each flag's value
// lands in the field of its name (CamelCase), or in o.Flags when
// parseOptions still has to check or convert it. No flag is read back by
// name.
//
// The modes' flags (mode.go) are each mode's own: shown in one block after
// the workload's, or, where a mode says so, before a common flag.
func sweepFlags(o *options) []cli.Flag {
	f := &o.Flags
	block, before := modeFlags(o)
	return placeFlags(append(categorize([]cli.Flag{
		&cli.StringFlag{Name: "url", Destination: &o.URL, Usage: "base URL of the OpenAI-compatible API, e.g. http://127.0.0.1:8000/v1"},
		&cli.BoolFlag{Name: "sim", Destination: &o.Sim, Usage: "start the built-in simulated server on a free loopback port and sweep it (no --url)"},
		&cli.StringFlag{Name: "sim-preset", Value: defaultSimPreset, Destination: &o.SimPreset, Action: mode.Given[string](&f.SimPresetSet), Usage: "simulator preset for --sim (see 'toksweep serve-sim --help')"},
		&cli.BoolFlag{Name: "sim-no-prefix-caching", Destination: &o.SimNoPrefix, Action: mode.Given[bool](&f.SimNoPrefixSet), Usage: "--sim: turn the simulator's prefix caching off (serve-sim --no-prefix-caching)"},
		&cli.StringFlag{Name: "sim-model", Destination: &f.SimModel, Usage: "--sim: a model fitted by 'toksweep fit' (model.json), its parameters set over the preset's"},
		&cli.StringSliceFlag{Name: "sim-adapter", Action: func(_ *cli.Context, v []string) error { f.SimAdapters = v; return nil }, Usage: "--sim: " + adapterUsage + " (serve-sim --adapter)"},
		&cli.StringFlag{Name: "sim-cliff", Destination: &f.SimCliff, Usage: "--sim: " + cliffUsage + " (serve-sim --cliff)"},
		&cli.BoolFlag{Name: "allow-extrapolation", Destination: &f.AllowExtrapolation, Usage: "--sim-model: run loads, prompts or a fit the model refuses (beyond 2× its calibration, or a poor fit), marked in the output"},
		&cli.StringFlag{Name: "model", Destination: &o.Model, Usage: "model name; when omitted, the one model /v1/models lists"},
		&cli.StringFlag{Name: "api", Value: "chat", Destination: &f.API, Usage: "endpoint: chat (/chat/completions) or completions (/completions)"},
		&cli.IntFlag{Name: "requests", DefaultText: "auto", Destination: &o.Requests, Action: mode.Given[int](&f.RequestsSet), Usage: requestsUsage},
		&cli.DurationFlag{Name: "duration", DefaultText: "none", Destination: &o.Duration, Action: mode.Given[time.Duration](&f.DurationSet), Usage: "bound on each level's measured phase, e.g. 2m: no request starts after it"},
		&cli.DurationFlag{Name: "drain-timeout", Value: sweep.DefaultDrainTimeout, Destination: &o.DrainTimeout, Usage: "with --duration: how long requests in flight at the end may finish before they are canceled (err_canceled)"},
		&cli.IntFlag{Name: "warmup", Destination: &o.Warmup, Usage: "warm-up requests per level, sent first and left out of every figure"},
		&cli.IntFlag{Name: "repeat", Value: 1, Destination: &o.Repeat, Usage: "run each level this many times"},
		&cli.IntFlag{Name: "max-tokens", Value: defaultMaxTokens, Destination: &o.MaxTokens, Action: mode.Given[int](&f.MaxTokensSet), Usage: "max_tokens per request (--sim default: 128); when given, it also replaces a dataset's per-request targets"},
		&cli.Float64Flag{Name: "temperature", DefaultText: "not sent", Action: into(&o.Temperature), Usage: "sampling temperature, sent only when given (0 is sent as 0)"},
		&cli.StringFlag{Name: "prompt", Destination: &f.Prompt, Action: mode.Given[string](&f.PromptSet), Usage: "prompt text (default: the seed story's long-essay prompt)"},
		&cli.StringFlag{Name: "prompt-file", Destination: &f.PromptFile, Usage: "read the prompt from this file"},
		&cli.StringFlag{Name: "extra-body", Destination: &f.ExtraBody, Usage: `JSON object merged into every request body, e.g. '{"ignore_eos": true}'`},
		&cli.StringFlag{Name: "api-key", Destination: &o.APIKey, EnvVars: []string{"OPENAI_API_KEY"}, Usage: "bearer token (never written to any output)"},
		&cli.StringSliceFlag{Name: "header", Action: func(_ *cli.Context, h []string) error { f.Header = h; return nil }, Usage: "extra request header K:V (repeatable)"},
		&cli.StringFlag{Name: "out", Destination: &o.Out, Usage: "results directory, new or empty (default: results/YYYYMMDD-HHMMSS, made unique)"},
		&cli.BoolFlag{Name: "overwrite", Destination: &o.Overwrite, Usage: "let --out name a directory holding an earlier run, which is replaced as a whole once the pre-flight check passes"},
		&cli.DurationFlag{Name: "request-timeout", Value: defaultRequestTimeout, Destination: &o.RequestTimeout, Usage: "deadline for one whole request, stalls included"},
		&cli.DurationFlag{Name: "connect-timeout", Value: defaultConnectTimeout, Destination: &o.ConnectTimeout, Usage: "deadline for connecting (dial and TLS)"},
		&cli.BoolFlag{Name: "insecure", Destination: &o.Insecure, Usage: "skip TLS certificate verification (recorded in summary.json)"},
		chartsFlag(&o.Charts),
	}, ""), slices.Concat(categorize(slices.Concat(capacityFlags(o), readingFlags(o), workloadFlags(o)), ""), block, categorize([]cli.Flag{capFlag(o)}, ""), categorize(slices.Concat(shardFlags(o), percentileFlags(o), liveFlags(o)), ""))...), before)
}

// chartsFlag is --charts, the chart files that sweep, report, compare and
// merge write (chart.ParseFormats), checked when given.
func chartsFlag(dest *string) cli.Flag {
	return &cli.StringFlag{Name: "charts", Value: strings.Join(chart.Formats, ","), Destination: dest,
		Action: func(_ *cli.Context, v string) error {
			if _, err := chart.ParseFormats(v); err != nil {
				return usagef("invalid --charts %v", err)
			}
			return nil
		},
		Usage: "chart files to write: png,svg, svg (small and fast), png, or none; report.html shows the charts either way"}
}

// into is a flag Action storing the value given in *p, which stays nil
// when the flag is absent.
func into[T any](p **T) func(*cli.Context, T) error {
	return func(_ *cli.Context, v T) error { *p = &v; return nil }
}

// deref is *p, or T's zero value when p is nil.
func deref[T any](p *T) T {
	var v T
	if p != nil {
		v = *p
	}
	return v
}

// requestsUsage is --requests' help: each mode's auto count, from the
// functions that count it (sweep.AutoRequests for the closed loop and
// sessions, rate.AutoRequests for the rate mode; a replay sends its
// trace).
var requestsUsage = fmt.Sprintf("measured requests per level; auto is %d per worker, at least %d; "+
	"at a rate, %ds of arrivals, at least %d; a trace replay: the trace's requests less the warm-up "+
	"(with --duration alone: unbounded)",
	sweep.AutoRequests(1000)/1000, sweep.AutoRequests(0), rate.AutoRequests(1000)/1000, rate.AutoRequests(0))
