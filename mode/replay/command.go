package replay

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/mode/openloop"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
	"github.com/toksweep/toksweep/workload/trace"
)

// Settings are the replay's settings on a command line: its flags as
// given, and the trace and speeds Parse read from them.
type Settings struct {
	File, Format, Window, Speeds string
	BlockSize, Vocab             int
	TokenIDs                     bool

	trace  *trace.Trace
	sum    trace.Summary
	speeds []float64
	auto   bool
	salt   uint64 // the run's (Load.Salt)
	// tpw and perMessage are the server's tokens per filler word and per
	// chat message, measured by prepare (text prompts only).
	tpw, perMessage float64
}

// Of is the replay's settings in l.
func Of(l *mode.Line) *Settings { return mode.Settings[Settings](l, Name) }

func (s *Settings) on() bool { return s.File != "" }

// Flags are --trace and its flags (docs/guide.md, "Trace replay").
func (Mode) Flags(l *mode.Line) []cli.Flag {
	r := Of(l)
	return []cli.Flag{
		&cli.StringFlag{Name: "trace", Destination: &r.File, Usage: "replay this trace (Mooncake or Qwen-Bailian JSONL, Azure or BurstGPT CSV): each request at its timestamp over the speed, with the trace's lengths and shared prefixes"},
		&cli.StringFlag{Name: "trace-format", Value: "auto", Destination: &r.Format, Usage: "--trace: auto (from the content), mooncake, bailian, azure or burstgpt"},
		&cli.StringFlag{Name: "trace-window", Destination: &r.Window, Usage: "--trace: replay only START:DURATION of the trace, e.g. 10m:5m"},
		&cli.IntFlag{Name: "trace-block-size", DefaultText: "the format's", Destination: &r.BlockSize, Usage: "--trace: tokens per hash id (Mooncake 512, Bailian 16)"},
		&cli.StringFlag{Name: "replay-speed", Value: "1", Destination: &r.Speeds, Usage: "--trace: comma-separated speeds, one level each (2 = twice the trace's rate), or auto: the highest speed that meets the SLO"},
		&cli.BoolFlag{Name: "prompt-token-ids", Destination: &r.TokenIDs, Usage: "--trace --api completions: send each prompt as a list of token ids, so input lengths are exact without a tokenizer"},
		&cli.IntFlag{Name: "vocab-size", Value: trace.DefaultVocab, Destination: &r.Vocab, Usage: "--prompt-token-ids: ids are drawn below this bound (and from 1000 up)"},
	}
}

// Category is "trace replay", the flags' category in --help.
func (Mode) Category() string { return "trace replay" }

// HelpOrder is 3: the last of the modes' flags.
func (Mode) HelpOrder() int { return 3 }

// FlagsBefore is none: the flags stand in the modes' block.
func (Mode) FlagsBefore() map[string]string { return nil }

// Given reports whether --trace or a flag only a replay takes was given.
func (Mode) Given(l *mode.Line) bool {
	r := Of(l)
	return r.on() || r.TokenIDs || r.Window != "" || r.BlockSize != 0
}

// PromptsFrom says, when a trace is replayed, that the trace sets each
// request's prompt and lengths, so the flags that set them do not apply.
func (Mode) PromptsFrom(l *mode.Line) string {
	if !Of(l).on() {
		return ""
	}
	return "--trace: the trace sets each request's prompt and lengths"
}

// Lengths are the trace's longest prompt and output, in tokens: what a
// model of the server is asked (its calibration's range is checked
// against them), not the prompt set's or --max-tokens.
func (Mode) Lengths(l *mode.Line) (prompt, output int) {
	s := Of(l).sum
	return s.Input.Max, s.Output.Max
}

// Parse checks the replay's flags, reads the trace and its speeds, and
// draws the run's salt (from --seed when given).
func (Mode) Parse(l *mode.Line) error {
	r := Of(l)
	if !r.on() {
		if r.TokenIDs || r.Window != "" || r.BlockSize != 0 {
			return mode.Usagef("--prompt-token-ids, --trace-window and --trace-block-size apply to a trace replay: give --trace FILE")
		}
		return nil
	}
	switch {
	case r.TokenIDs && l.API != client.Completions:
		return mode.Usagef("--prompt-token-ids needs --api completions (the chat API takes text)")
	case r.Vocab <= trace.MinTokenID || r.Vocab > trace.MaxVocab:
		return mode.Usagef("invalid --vocab-size %d: want %d to %d", r.Vocab, trace.MinTokenID+1, trace.MaxVocab)
	}
	if err := r.read(); err != nil {
		return err
	}
	r.salt = rand.Uint64()
	if l.SeedSet {
		r.salt = rand.New(rand.NewPCG(uint64(l.Seed), 0x7265706c6179)).Uint64() // "replay"
	}
	return r.parseSpeeds()
}

// read reads the trace, its window, and summarises it.
func (r *Settings) read() error {
	format, err := trace.ParseFormat(r.Format)
	if err != nil {
		return mode.Usagef("invalid --trace-format: %v", err)
	}
	var w trace.Window
	if r.Window != "" {
		if w, err = trace.ParseWindow(r.Window); err != nil {
			return mode.Usagef("%v", err)
		}
	}
	tr, err := trace.ReadFile(r.File, trace.Options{Format: format, BlockSize: r.BlockSize})
	if err != nil {
		return mode.Usagef("--trace: %v", err)
	}
	if r.trace, err = tr.Slice(w); err != nil {
		return mode.Usagef("%v", err)
	}
	r.sum = trace.Summarize(r.trace)
	if !r.sum.Timed() {
		return mode.Usagef("--trace %s: its requests all share one instant, so it has no rate to replay at a speed", r.File)
	}
	return nil
}

// MaxSpeed is the highest speed of the trace s: the speed at which it
// would offer openloop.MaxRate, at its mean rate or in its busiest second,
// whichever comes first.
func MaxSpeed(s trace.Summary) float64 {
	return openloop.MaxRate / max(s.MeanRate, float64(s.PeakRate1s))
}

// parseSpeeds reads --replay-speed: auto or a list of speeds, in order,
// each offering at most openloop.MaxRate (MaxSpeed).
func (r *Settings) parseSpeeds() error {
	if strings.TrimSpace(r.Speeds) == "auto" {
		r.auto = true
		return nil
	}
	most := MaxSpeed(r.sum)
	prev := 0.0
	for _, s := range strings.Split(r.Speeds, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return mode.Usagef("invalid --replay-speed %q: %q is not a speed (want numbers above 0, e.g. 0.5,1,2)", r.Speeds, s)
		}
		if v > most {
			return mode.Usagef("invalid --replay-speed %q: %g× would offer %.4g req/s (mean) and %.4g req/s in the trace's busiest second, over the %d req/s bound: this trace's highest speed is %.6g×",
				r.Speeds, v, v*r.sum.MeanRate, v*float64(r.sum.PeakRate1s), openloop.MaxRate, most)
		}
		if v <= prev {
			return mode.Usagef("invalid --replay-speed %q: list the speeds in increasing order", r.Speeds)
		}
		prev = v
		r.speeds = append(r.speeds, v)
	}
	return nil
}

// Check has nothing more to check once the workload is known.
func (Mode) Check(*mode.Line) error { return nil }

// Chosen reports whether --trace was given.
func (Mode) Chosen(l *mode.Line) bool { return Of(l).on() }

// Text is the replay in the start-up line: "with trace t.jsonl at speeds
// 1× (20 req/s), 2× (40 req/s)".
func (Mode) Text(l *mode.Line) string {
	r := Of(l)
	if r.auto {
		return fmt.Sprintf("with trace %s at speed auto (1 = %.4g req/s)", r.File, r.sum.MeanRate)
	}
	parts := make([]string, len(r.speeds))
	for i, s := range r.speeds {
		parts[i] = fmt.Sprintf("%g× (%s req/s)", s, openloop.JoinRates([]float64{s * r.sum.MeanRate}))
	}
	return fmt.Sprintf("with trace %s at speeds %s", r.File, strings.Join(parts, ", "))
}

// Searched reports whether --replay-speed auto chooses the speeds.
func (Mode) Searched(l *mode.Line) bool { return Of(l).auto }

// Levels is how many speeds the sweep plans.
func (Mode) Levels(l *mode.Line) int { return len(Of(l).speeds) }

// Conns is the cap (0: the default pool).
func (Mode) Conns(l *mode.Line) int { return l.Cap }

// Streams is not known before the sweep.
func (Mode) Streams(*mode.Line) int { return 0 }

// Record puts the speeds in summary.json's open-loop config (its rates:
// the speeds), with the cap.
func (Mode) Record(l *mode.Line, rc *report.RunConfig) {
	r := Of(l)
	rc.OpenLoop = &report.OpenLoopConfig{Rates: r.speeds, Auto: r.auto, Arrival: "trace", Seed: l.Seed, MaxConcurrency: l.Cap}
}

// Summary adds the trace's summary and the run's salt.
func (Mode) Summary(l *mode.Line, sum *report.Summary) {
	r := Of(l)
	sum.Trace = &r.sum
	salt := r.salt
	sum.ReplaySalt = &salt
}

// Estimate is the replay's time estimate.
func (Mode) Estimate(l *mode.Line) mode.Estimate {
	r := Of(l)
	return Estimate{Summary: r.sum, Speeds: r.speeds, Auto: r.auto}
}

// Start measures the server's tokens per word (text prompts), then makes
// cfg a replay of the trace at its speeds, or the speed search judged on
// the levels as they end.
func (Mode) Start(ctx context.Context, st mode.Start, cfg *sweep.Config) mode.Run {
	r := Of(st.Line)
	r.prepare(ctx, st.Client, st.Stderr)
	ld := &Load{Trace: r.replay(st.Line.API), Speeds: r.speeds, Cap: st.Line.Cap, Salt: r.salt}
	cfg.Load = ld
	run := mode.Run{
		Note:    func(_ sweep.Level, s report.LevelStats) string { return r.lengthNote(s) },
		Preface: r.writeSummary,
		Closing: r.speedsSentence,
	}
	newSpeeds := func(slo report.SLO) Speeds { return NewSpeeds(st.Stats, slo, ld.Cap, r.sum.MeanRate, MaxSpeed(r.sum)) }
	switch tiers := mode.SearchSLOs(st.Line); {
	case r.auto && tiers != nil:
		at := sweep.LevelKey{Mode: Name, Concurrency: ld.Cap}
		speeds := mode.NewTierSearch(tiers, func(slo report.SLO) func() (float64, bool) { return newSpeeds(slo).Next },
			"--replay-speed auto", st.Stats, func(x float64) sweep.LevelKey { k := at; k.Load = x; return k })
		ld.Chooser, run.Search = speeds, speeds
	case r.auto:
		speeds := newSpeeds(st.Line.SLO)
		ld.Chooser, run.Search = speeds, speeds
	}
	return run
}
