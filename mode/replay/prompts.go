package replay

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/internal/english"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
	"github.com/toksweep/toksweep/workload"
	"github.com/toksweep/toksweep/workload/trace"
)

// prepare measures, for text prompts, the server's tokens per filler word
// and per chat message: two requests of 40 and 240 words, one token each,
// read from usage.prompt_tokens. A server without usage gets the
// defaults, and a warning.
func (r *Settings) prepare(ctx context.Context, cl *client.Client, stderr io.Writer) {
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

// replay is the trace as the sweep sends it, its prompts built for api:
// each request's parent turn found by its id, each conversation numbered
// as a session.
func (r *Settings) replay(api client.API) *sweep.Replay {
	tr := r.trace
	rp := &sweep.Replay{MeanRate: r.sum.MeanRate}
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
	return rp
}

// writeSummary prints the trace's summary (console).
func (r *Settings) writeSummary(w io.Writer) error {
	path, s := r.File, r.sum
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
func (r *Settings) speedsSentence(stats []report.LevelStats) string {
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
func (r *Settings) lengthNote(s report.LevelStats) string {
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
