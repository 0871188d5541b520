package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/workload"
)

const (
	// preflightTokens is the output the pre-flight request asks for: enough
	// to time a first token and the gaps after it, short enough that the
	// server has finished it (it is read to its end) before level 1. At 8
	// the simulator's ~3 ms steps made a 22 ms sample, which one stall of a
	// busy client could hold whole: its sends stamped at once, it made the
	// README sweep's estimate 2–6× short (5 of 96 pre-flights beside load).
	preflightTokens = 32
	// preflightWait is the pre-flight request's own deadline, beyond the
	// connect timeout (and never beyond --request-timeout): a server that
	// accepts the request and never answers fails the check in seconds.
	preflightWait = 30 * time.Second
	// preflightNotice is how long the pre-flight may go unanswered before
	// stderr says that toksweep is waiting.
	preflightNotice = 2 * time.Second
)

// checkState is what the checks before the sweep learn about the target.
type checkState struct {
	contextLen int           // the model's context length from /models; 0: unknown
	rec        client.Record // the pre-flight request, when it succeeded
	measured   bool          // rec holds a successful pre-flight
	// wait and notice replace preflightWait and preflightNotice (tests).
	wait, notice time.Duration
}

// preflight sends one real request (the first prompt, a handful of output
// tokens) and reads it to its end, so a wrong key, an unknown model, a
// prompt the server refuses (by status or by an error event inside a 200
// stream) fails in seconds with the server's own reason, and the server is
// idle again when level 1 starts. A prompt plus --max-tokens over the
// context length the server lists fails here too, with the numbers.
func preflight(ctx context.Context, cl *client.Client, o *options, p client.Prompt, stderr io.Writer) error {
	if o.check.contextLen == 0 {
		o.check.contextLen = listedContext(ctx, cl, o)
	}
	p.MaxTokens = preflightOutput(o)
	limit := o.ConnectTimeout + cmpOr(o.check.wait, preflightWait) // --request-timeout still applies, in the client
	pctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	stop := waitNotice(stderr, redactURL(o.URL), limit, cmpOr(o.check.notice, preflightNotice))
	rec, err := cl.Check(pctx, p)
	stop()
	if err == nil {
		o.check.rec, o.check.measured = rec, true
		return o.contextFits(rec)
	}
	if transient(err) {
		// The server is busy or failing now: that is what a sweep measures
		// and counts, not a mistake in the command line.
		fmt.Fprintf(stderr, "toksweep: warning: the pre-flight request failed (%v); sweeping anyway, failures are counted per class\n", err)
		return nil
	}
	if ctx.Err() == nil && pctx.Err() != nil { // our limit, not Ctrl-C: the client calls it canceled
		err = fmt.Errorf("no answer from %s within %s, the pre-flight request's deadline", redactURL(o.URL), limit)
	}
	if hint := missingV1(ctx, o, err); hint != nil {
		return hint
	}
	var re *client.RequestError
	if errors.As(err, &re) {
		if h := contextHint(re.Message, o.MaxTokens, true); h != "" {
			return fmt.Errorf("pre-flight check failed, no load sent: %w (%s)", err, h)
		}
	}
	return checkFailed(err, false)
}

func cmpOr(a, b time.Duration) time.Duration {
	if a > 0 {
		return a
	}
	return b
}

// preflightOutput is the pre-flight's max_tokens: preflightTokens, or
// --max-tokens when lower (no longer than a measured request), or the
// --min-tokens floor when it is higher (a server refuses min > max).
func preflightOutput(o *options) int {
	n := preflightTokens
	if o.MaxTokens > 0 {
		n = min(n, o.MaxTokens)
	}
	switch v := o.ExtraBody["min_tokens"].(type) {
	case int:
		n = max(n, v)
	case float64:
		n = max(n, int(min(v, 1<<20)))
	}
	return n
}

// listedContext is the model's context length as /models lists it, when
// --model was given (resolveModel reads it otherwise). The listing is a
// courtesy: any failure leaves it unknown (0), and it waits no longer than
// the connect timeout, as the connection warm-up does.
func listedContext(ctx context.Context, cl *client.Client, o *options) int {
	lctx, cancel := context.WithTimeout(ctx, o.ConnectTimeout)
	defer cancel()
	models, err := cl.ListModels(lctx)
	if err != nil {
		return 0
	}
	for _, m := range models {
		if m.ID == o.Model {
			return m.MaxModelLen
		}
	}
	return 0
}

// contextFits checks every prompt's estimated length plus its output target
// against the listed context length. The first prompt's length is the
// pre-flight's prompt_tokens; the others are scaled from it by their text
// (workload.EstimateTokens), hence "~".
func (o *options) contextFits(rec client.Record) error {
	limit := o.check.contextLen
	if _, set := o.ExtraBody["max_tokens"]; limit <= 0 || set || o.ExtraBody["max_completion_tokens"] != nil {
		return nil
	}
	prompts := o.Work.Set.Prompts
	if len(prompts) == 0 {
		return nil
	}
	scale := 1.0
	if first := workload.EstimateTokens(promptText(prompts[0])); rec.PromptTokens > 0 && first > 0 {
		scale = float64(rec.PromptTokens) / float64(first)
	}
	worst, worstN, worstM := -1, 0, 0
	for i, p := range prompts {
		n := int(float64(workload.EstimateTokens(promptText(p)))*scale + 0.5)
		if i == 0 && rec.PromptTokens > 0 {
			n = rec.PromptTokens
		}
		m := p.MaxTokens
		if m <= 0 {
			m = o.MaxTokens
		}
		if n+m > limit && (worst < 0 || n+m > worstN+worstM) {
			worst, worstN, worstM = i, n, m
		}
	}
	if worst < 0 {
		return nil
	}
	return fmt.Errorf("pre-flight check failed, no load sent: %s (the server lists model %s with max_model_len %d)",
		contextAdvice(worstN, worstM, limit), o.Model, limit)
}

// contextAdvice says which way a request overflows the context.
func contextAdvice(prompt, maxTokens, limit int) string {
	if prompt >= limit {
		return fmt.Sprintf("prompt ~%d > context %d: shorten the prompts", prompt, limit)
	}
	return fmt.Sprintf("prompt ~%d + max_tokens %d > context %d: lower --max-tokens", prompt, maxTokens, limit)
}

func promptText(p client.Prompt) string {
	if len(p.Messages) == 0 {
		return p.Text
	}
	var b strings.Builder
	for _, m := range p.Messages {
		b.WriteString(m.Content)
		b.WriteByte('\n')
	}
	return b.String()
}

var (
	ctxLimitRe  = regexp.MustCompile(`(?i)maximum context length is (\d+)`)
	ctxPromptRe = regexp.MustCompile(`(?i)(\d+) in the (?:messages|prompt)|(\d+) input tokens|prompt has (\d+)|messages resulted in (\d+)`)
	ctxOutputRe = regexp.MustCompile(`(?i)(\d+) in the completion|max_completion_tokens' is too large: (\d+)|max_tokens' is too large: (\d+)`)
)

// contextHint reads a server's context-length refusal (vLLM's and
// llm-d-inference-sim's wording) and says what to change, with the
// numbers: "prompt ~10 + max_tokens 2048 > context 1024: lower
// --max-tokens". maxTokens stands in when the message does not say the
// output length, or always for the pre-flight, whose own output is only
// preflightOutput's. "" when msg is not a context-length refusal.
func contextHint(msg string, maxTokens int, preflight bool) string {
	limit := firstInt(ctxLimitRe, msg)
	if limit <= 0 {
		return ""
	}
	prompt, out := firstInt(ctxPromptRe, msg), firstInt(ctxOutputRe, msg)
	if out <= 0 || preflight {
		out = maxTokens
	}
	if prompt <= 0 {
		return fmt.Sprintf("the prompt + max_tokens %d > context %d: lower --max-tokens or shorten the prompts", out, limit)
	}
	return contextAdvice(prompt, out, limit)
}

// firstInt is the first non-empty group of re's first match in s; 0 if none.
func firstInt(re *regexp.Regexp, s string) int {
	m := re.FindStringSubmatch(s)
	for _, g := range m[min(1, len(m)):] {
		if n, err := strconv.Atoi(g); err == nil {
			return n
		}
	}
	return 0
}

// transient reports whether a pre-flight failure is the server's momentary
// state (5xx, 429, an error event that says so) rather than a wrong URL,
// key, model, prompt or length. An error event inside a 200 stream is
// judged like the status it carries; without one, by its words.
func transient(err error) bool {
	var re *client.RequestError
	if !errors.As(err, &re) {
		return false
	}
	switch re.Class {
	case client.HTTP5xx, client.HTTP429:
		return true
	case client.StreamError:
		if code := client.EventCode(re.Message); code != 0 {
			return code >= 500 || code == 429
		}
		return momentary(re.Message)
	}
	return false
}

// momentary reports whether an error's words describe a passing state.
func momentary(msg string) bool {
	msg = strings.ToLower(msg)
	for _, w := range []string{"queue is full", "overloaded", "try again", "too many requests", "busy", "unavailable", "rate limit"} {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}

// waitNotice says on w that the pre-flight request is waiting for an
// answer, once it has waited after: on a terminal as a live line that
// counts the seconds, elsewhere as one line now and then. The returned
// stop ends it (and clears the live line).
func waitNotice(w io.Writer, url string, limit, after time.Duration) (stop func()) {
	live := isTerminal(w)
	quit, exited := make(chan struct{}), make(chan struct{})
	begun := time.Now()
	go func() {
		defer close(exited)
		next, drawn := after, false
		t := time.NewTimer(after)
		defer t.Stop()
		for {
			select {
			case <-quit:
				if drawn && live {
					fmt.Fprint(w, "\r\033[K")
				}
				return
			case <-t.C:
			}
			waited := time.Since(begun).Round(time.Second)
			line := fmt.Sprintf("toksweep: the pre-flight request to %s has had no answer for %s (it gives up at %s)", url, waited, limit)
			if live {
				fmt.Fprintf(w, "\r\033[K%s", line)
				t.Reset(progressEvery)
			} else {
				fmt.Fprintln(w, line)
				next *= 2 // 2 s, 4 s, 8 s, ...: a few lines, not one a second
				t.Reset(next - time.Since(begun))
			}
			drawn = true
		}
	}()
	return func() { close(quit); <-exited }
}
