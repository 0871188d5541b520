package app

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/internal/english"
	"github.com/toksweep/toksweep/mode/closed"
	"github.com/toksweep/toksweep/mode/sessions"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/search"
	"github.com/toksweep/toksweep/sweep"
	"github.com/toksweep/toksweep/workload"
	"github.com/toksweep/toksweep/workload/trace"
)

// maxSpeed bounds a --replay-speed.
const maxSpeed = 1000

// replayFlags are the trace replay's flags (docs/guide.md, "Trace replay").
func replayFlags(o *options) []cli.Flag {
	r := &o.Replay
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

// replaySettings is what the replay flags chose; File empty means no replay.
type replaySettings struct {
	File, Format, Window, Speeds string
	BlockSize, Vocab             int
	TokenIDs                     bool

	trace  *trace.Trace
	sum    trace.Summary
	speeds []float64
	auto   bool
	// tpw and perMessage are the server's tokens per filler word and per
	// chat message, measured by prepare (text prompts only).
	tpw, perMessage float64
}

func (r *replaySettings) on() bool { return r.File != "" }

// replayConflicts refuses, beside --trace, the flags that set what the
// trace sets: each request's prompt and lengths. It runs in the first pass,
// before the prompt set is read (a --dataset is not opened, a --turns not
// taken for a sessions run).
func (o *options) replayConflicts() error {
	f := &o.Flags
	if !o.Replay.on() {
		return nil
	}
	for _, c := range []struct {
		flag string
		set  bool
	}{
		{"--prompt", f.PromptSet},
		{"--prompt-file", f.PromptFile != ""},
		{"--dataset", f.Dataset != ""},
		{"--input-tokens", f.InputTokensSet},
		{"--turns", sessions.Of(&o.Line).TurnsSet},
		{"--max-tokens", f.MaxTokensSet},
		{"--min-tokens", f.MinTokens != nil},
	} {
		if c.set {
			return usagef("%s does not apply to --trace: the trace sets each request's prompt and lengths", c.flag)
		}
	}
	return nil
}

// replay checks the replay flags and reads the trace; the speeds go
// through the open-loop flags' checks (o.rates: --rates auto or the list,
// --max-concurrency), and apply turns them into the replay mode's levels.
func (o *options) replay() error {
	r, f := &o.Replay, &o.Flags
	if !r.on() {
		if r.TokenIDs || r.Window != "" || r.BlockSize != 0 {
			return usagef("--prompt-token-ids, --trace-window and --trace-block-size apply to a trace replay: give --trace FILE")
		}
		return nil
	}
	switch {
	case f.RatesSet:
		return usagef("--trace and --rates are exclusive: a replay's levels are speeds (--replay-speed)")
	case closed.Mode{}.Given(&o.Line):
		return usagef("--trace and --levels are exclusive: a replay's levels are speeds (--replay-speed)")
	case f.ArrivalSet || f.BurstinessSet:
		return usagef("--arrival and --burstiness do not apply to --trace: the trace's timestamps are the arrivals")
	case r.TokenIDs && o.API != client.Completions:
		return usagef("--prompt-token-ids needs --api completions (the chat API takes text)")
	case r.Vocab <= trace.MinTokenID || r.Vocab > trace.MaxVocab:
		return usagef("invalid --vocab-size %d: want %d to %d", r.Vocab, trace.MinTokenID+1, trace.MaxVocab)
	}
	format, err := trace.ParseFormat(r.Format)
	if err != nil {
		return usagef("invalid --trace-format: %v", err)
	}
	var w trace.Window
	if r.Window != "" {
		if w, err = trace.ParseWindow(r.Window); err != nil {
			return usagef("%v", err)
		}
	}
	tr, err := trace.ReadFile(r.File, trace.Options{Format: format, BlockSize: r.BlockSize})
	if err != nil {
		return usagef("--trace: %v", err)
	}
	if r.trace, err = tr.Slice(w); err != nil {
		return usagef("%v", err)
	}
	r.sum = trace.Summarize(r.trace)
	if !r.sum.Timed() {
		return usagef("--trace %s: its requests all share one instant, so it has no rate to replay at a speed", r.File)
	}
	if err := r.parseSpeeds(); err != nil {
		return err
	}
	f.Rates, f.RatesSet = search.JoinRates(r.speeds), true
	if r.auto {
		f.Rates = "auto"
	}
	return nil
}

// parseSpeeds reads --replay-speed: auto or a list of speeds, in order.
func (r *replaySettings) parseSpeeds() error {
	if strings.TrimSpace(r.Speeds) == "auto" {
		r.auto = true
		return nil
	}
	prev := 0.0
	for _, s := range strings.Split(r.Speeds, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || !(v > 0) || v > maxSpeed || v*r.sum.MeanRate > maxRate {
			return usagef("invalid --replay-speed %q: %q is not a speed (want numbers above 0, up to %d and to a rate of %d req/s, e.g. 0.5,1,2)", r.Speeds, s, maxSpeed, maxRate)
		}
		if v <= prev {
			return usagef("invalid --replay-speed %q: list the speeds in increasing order", r.Speeds)
		}
		prev = v
		r.speeds = append(r.speeds, v)
	}
	return nil
}

// prepare measures, for text prompts, the server's tokens per filler word
// and per chat message: two requests of 40 and 240 words, one token each,
// read from usage.prompt_tokens. A server without usage gets the
// defaults, and a warning.
func (r *replaySettings) prepare(ctx context.Context, cl *client.Client, stderr io.Writer) {
	if !r.on() {
		return
	}
	if r.TokenIDs {
		return
	}
	r.tpw, r.perMessage = trace.DefaultTokensPerWord, 0
	rng := rand.New(rand.NewPCG(22, 0))
	var got [2]int
	for i, words := range [2]int{40, 240} {
		rec := cl.Do(ctx, client.Prompt{Text: workload.Filler(rng, words), MaxTokens: 1})
		got[i] = rec.PromptTokens
	}
	if got[0] <= 0 || got[1] <= got[0] {
		fmt.Fprintf(stderr, "toksweep: warning: the server reported no usable prompt_tokens; trace prompts are scaled at %.1f tokens per word\n", r.tpw)
		return
	}
	r.tpw = float64(got[1]-got[0]) / 200
	r.perMessage = math.Max(float64(got[0])-40*r.tpw, 0)
	fmt.Fprintf(stderr, "toksweep: the server counts %.3f tokens per filler word and %.1f per message; trace prompts are scaled by them\n", r.tpw, r.perMessage)
}

// apply makes cfg a replay of the trace (sweep.ReplayMode), its levels
// the speeds, or, for auto, the speed search judged on stats, which it
// returns (nil otherwise).
func (r *replaySettings) apply(cfg *sweep.Config, api client.API, stats *[]report.LevelStats, slo report.SLO) *search.Speeds {
	if !r.on() {
		return nil
	}
	tr := r.trace
	rp := &sweep.Replay{MeanRate: r.sum.MeanRate, Speeds: cfg.Rates}
	var auto *search.Speeds
	if r.auto {
		auto = search.NewSpeeds(stats, slo, cfg.MaxConcurrency, r.sum.MeanRate, maxSpeed)
		rp.Plan = auto
	}
	cfg.Rates, cfg.RatePlan = nil, nil
	index := make(map[int64]int, len(tr.Requests))
	sessions := map[int64]int{} // a conversation's first turn: its session number
	for i, q := range tr.Requests {
		rq := sweep.ReplayRequest{At: q.At, Parent: -1, Input: q.Input, Output: q.Output}
		if p, ok := index[q.Parent]; ok && q.Parent != trace.NoParent {
			rq.Parent = p
			root := rp.Requests[p].Session
			if root == 0 {
				root = len(sessions) + 1
				sessions[tr.Requests[p].ID] = root
				rp.Requests[p].Session, rp.Requests[p].Turn = root, 1
			}
			rq.Session, rq.Turn = root, rp.Requests[p].Turn+1
		}
		index[q.ID] = i
		rp.Requests = append(rp.Requests, rq)
	}
	tokenIDs := r.TokenIDs && api == client.Completions
	rp.Prompt = func(i int, parent *sweep.ReplayTurn, salt uint64) client.Prompt {
		b := trace.Prompts{BlockSize: tr.BlockSize, Salt: salt, TokenIDs: tokenIDs, Vocab: r.Vocab, TokensPerWord: r.tpw, MessageTokens: r.perMessage}
		if api == client.Completions {
			b.MessageTokens = 0
		}
		if parent == nil {
			return b.Prompt(&tr.Requests[i])
		}
		return b.FollowUp(&tr.Requests[i], parent.Prompt, parent.Reply, parent.Record.OutputTokens())
	}
	cfg.Mode, cfg.ModeSpec = sweep.ReplayMode, rp
	return auto
}

// text describes the replay for the start-up line.
func (r *replaySettings) text() string {
	if r.auto {
		return fmt.Sprintf("with trace %s at speed auto (1 = %.4g req/s)", r.File, r.sum.MeanRate)
	}
	parts := make([]string, len(r.speeds))
	for i, s := range r.speeds {
		parts[i] = fmt.Sprintf("%g× (%s req/s)", s, search.JoinRates([]float64{s * r.sum.MeanRate}))
	}
	return fmt.Sprintf("with trace %s at speeds %s", r.File, strings.Join(parts, ", "))
}

// writeTraceSummary prints the trace summary (console).
func writeTraceSummary(w io.Writer, path string, s trace.Summary) error {
	var b strings.Builder
	fmt.Fprintf(&b, "trace %s (%s", path, s.Format)
	if s.BlockSize > 0 {
		fmt.Fprintf(&b, ", blocks of %d tokens", s.BlockSize)
	}
	fmt.Fprintf(&b, "): %s (%s skipped) over %.1f s, mean %.3g req/s, peak %d in 1 s\n", english.Plural(s.Requests, "request"), english.Plural(s.Skipped, "line"), s.Span.Seconds(), s.MeanRate, s.PeakRate1s)
	for _, d := range []struct {
		name string
		d    trace.Distribution
	}{{"input", s.Input}, {"output", s.Output}} {
		fmt.Fprintf(&b, "  %-6s tokens: mean %.0f, min %d, p50 %d, p90 %d, p99 %d, max %d\n", d.name, d.d.Mean, d.d.Min, d.d.P50, d.d.P90, d.d.P99, d.d.Max)
	}
	if s.HasHashes {
		fmt.Fprintf(&b, "  best possible prefix-hit rate (prompt tokens in blocks sent before): %.1f%%\n", 100*s.PrefixReuse)
	}
	if s.Sessions > 0 {
		fmt.Fprintf(&b, "  sessions: %d of %d turns (longest %d)\n", s.Sessions, s.Turns, s.MaxTurns)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// speedsSentence names the levels' speeds, each once and ascending, with
// their offered rates, for the closing paragraph.
func (r *replaySettings) speedsSentence(stats []report.LevelStats) string {
	var speeds []float64
	for _, s := range stats {
		speeds = append(speeds, s.Rate)
	}
	slices.Sort(speeds)
	var parts []string
	for _, v := range slices.Compact(speeds) { // each speed once, whatever --repeat
		parts = append(parts, fmt.Sprintf("%g× = %.4g req/s", v, v*r.sum.MeanRate))
	}
	return fmt.Sprintf("Replay speeds (offered rate = speed × the trace's mean rate, %.4g req/s): %s.", r.sum.MeanRate, strings.Join(parts, ", "))
}

// lengthNote is a replay level's input and output length errors against
// the trace (docs/metrics.md, "Trace replay"; the levels.csv columns
// input_length_error_* and output_length_error_*) and, when the server was
// scraped, its prefix-hit rate beside the trace's best possible one, for
// the level's progress line.
func (r *replaySettings) lengthNote(s report.LevelStats) string {
	in, out := s.InputLengthError, s.OutputLengthError
	if !r.on() {
		return ""
	}
	var note string
	if in.N > 0 || out.N > 0 {
		note = fmt.Sprintf("\n  lengths against the trace: input error mean %+.1f%% p99 %.1f%% (%d requests), output error mean %+.1f%% p99 %.1f%% (%d)",
			100*in.Mean, 100*in.P99, in.N, 100*out.Mean, 100*out.P99, out.N)
	}
	if r.sum.HasHashes && s.Server.Scraped && !math.IsNaN(s.Server.PrefixHitRate) {
		note += fmt.Sprintf("\n  prefix hits: the server's %.1f%%, the trace's best possible %.1f%%", 100*s.Server.PrefixHitRate, 100*r.sum.PrefixReuse)
	}
	return note
}
