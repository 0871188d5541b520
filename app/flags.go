package app

import (
	"slices"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/sweep"
)

// Defaults that the README documents.
const (
	defaultLevels         = "1,2,4,8,16,32,64"
	defaultMaxTokens      = 2048 // the seed story's methodology
	defaultSimMaxTokens   = 128  // --sim without --max-tokens: keeps the demo sweep short
	defaultRequestTimeout = 10 * time.Minute
	defaultConnectTimeout = 10 * time.Second
	defaultSimPreset      = "default"
)

func sweepFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "url", Usage: "base URL of the OpenAI-compatible API, e.g. http://127.0.0.1:8000/v1"},
		&cli.BoolFlag{Name: "sim", Usage: "start the built-in simulated server on a free loopback port and sweep it (no --url)"},
		&cli.StringFlag{Name: "sim-preset", Value: defaultSimPreset, Usage: "simulator preset for --sim (see 'toksweep serve-sim --help')"},
		&cli.StringFlag{Name: "model", Usage: "model name; when omitted, the one model /v1/models lists"},
		&cli.StringFlag{Name: "api", Value: "chat", Usage: "endpoint: chat (/chat/completions) or completions (/completions)"},
		&cli.StringFlag{Name: "levels", Value: defaultLevels, Usage: "comma-separated concurrency levels, run in ascending order, or auto (adaptive search; see --slo-*)"},
		&cli.IntFlag{Name: "requests", DefaultText: "auto", Usage: "measured requests per level; auto is 4 per worker, at least 8 (with --duration alone: unbounded)"},
		&cli.DurationFlag{Name: "duration", DefaultText: "none", Usage: "bound on each level's measured phase, e.g. 2m: no request starts after it"},
		&cli.DurationFlag{Name: "drain-timeout", Value: sweep.DefaultDrainTimeout, Usage: "with --duration: how long requests in flight at the end may finish before they are canceled (err_canceled)"},
		&cli.IntFlag{Name: "warmup", Usage: "warm-up requests per level, sent first and left out of every figure"},
		&cli.IntFlag{Name: "repeat", Value: 1, Usage: "run each level this many times"},
		&cli.IntFlag{Name: "max-tokens", Value: defaultMaxTokens, Usage: "max_tokens per request (--sim default: 128); when given, it also replaces a dataset's per-request targets"},
		&cli.Float64Flag{Name: "temperature", DefaultText: "not sent", Usage: "sampling temperature, sent only when given (0 is sent as 0)"},
		&cli.StringFlag{Name: "prompt", Usage: "prompt text (default: the seed story's long-essay prompt)"},
		&cli.StringFlag{Name: "prompt-file", Usage: "read the prompt from this file"},
		&cli.StringFlag{Name: "extra-body", Usage: `JSON object merged into every request body, e.g. '{"ignore_eos": true}'`},
		&cli.StringFlag{Name: "api-key", EnvVars: []string{"OPENAI_API_KEY"}, Usage: "bearer token (never written to any output)"},
		&cli.StringSliceFlag{Name: "header", Usage: "extra request header K:V (repeatable)"},
		&cli.StringFlag{Name: "out", Usage: "results directory (default: results/YYYYMMDD-HHMMSS)"},
		&cli.DurationFlag{Name: "request-timeout", Value: defaultRequestTimeout, Usage: "deadline for one whole request, stalls included"},
		&cli.DurationFlag{Name: "connect-timeout", Value: defaultConnectTimeout, Usage: "deadline for connecting (dial and TLS)"},
		&cli.BoolFlag{Name: "insecure", Usage: "skip TLS certificate verification (recorded in summary.json)"},
	}, slices.Concat(capacityFlags(), workloadFlags(), rateFlags())...)
}
