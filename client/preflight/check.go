package preflight

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/internal/progress"
)

const (
	// Tokens is the output the pre-flight request asks for: enough to time
	// a first token and the gaps after it, short enough that the server has
	// finished it (it is read to its end) before level 1. At 8 the
	// simulator's ~3 ms steps made a 22 ms sample, which one stall of a
	// busy client could hold whole: its sends stamped at once, it made the
	// README sweep's estimate 2–6× short (5 of 96 pre-flights beside load).
	Tokens = 32
	// wait is the pre-flight request's own deadline, beyond the connect
	// timeout (and never beyond --request-timeout): a server that accepts
	// the request and never answers fails the check in seconds.
	wait = 30 * time.Second
	// notice is how long the pre-flight may go unanswered before stderr
	// says that toksweep is waiting.
	notice = 2 * time.Second
	// listingWait bounds the checks made before any load is sent, beyond
	// the connect timeout: a server that accepts connections but never
	// answers must not hold the run (the pre-flight request's own, shorter
	// bound is wait).
	listingWait = 60 * time.Second
)

// Target is what the pre-flight needs of the checked command line.
type Target struct {
	// Config is the client's (its BaseURL is --url; its Model, MaxTokens,
	// ExtraBody and ConnectTimeout are the flags').
	Config  client.Config
	Prompts []client.Prompt // the prompt set, each checked against the context length
	// ContextLen is the model's context length when the model listing gave
	// it; 0: Run asks /models.
	ContextLen int
	// Wait and Notice replace the request's deadline and the time before
	// the waiting notice (tests); 0: 30 s and 2 s.
	Wait, Notice time.Duration
}

// Result is what the pre-flight learned of the target.
type Result struct {
	ContextLen int           // the model's context length from /models; 0: unknown
	Rec        client.Record // the pre-flight request, when it succeeded
	Measured   bool          // Rec holds a successful pre-flight
}

// Run sends one real request (p, a handful of output tokens) and reads it
// to its end, so a wrong key, an unknown model, a prompt the server refuses
// (by status or by an error event inside a 200 stream) fails in seconds
// with the server's own reason, and the server is idle again when level 1
// starts. A prompt plus --max-tokens over the context length the server
// lists fails here too, with the numbers. A failure that is the server's
// momentary state is a warning on stderr, and no error.
func Run(ctx context.Context, cl *client.Client, t Target, p client.Prompt, stderr io.Writer) (Result, error) {
	res := Result{ContextLen: t.ContextLen}
	if res.ContextLen == 0 {
		res.ContextLen = listedContext(ctx, cl, t.Config)
	}
	p.MaxTokens = Output(t.Config.MaxTokens, t.Config.ExtraBody)
	limit := t.Config.ConnectTimeout + cmpOr(t.Wait, wait) // --request-timeout still applies, in the client
	pctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	url := client.RedactURL(t.Config.BaseURL)
	stop := waitNotice(stderr, url, limit, cmpOr(t.Notice, notice))
	rec, err := cl.Check(pctx, p)
	stop()
	if err == nil {
		res.Rec, res.Measured = rec, true
		return res, contextFits(t, res.ContextLen, rec)
	}
	if transient(err) {
		// The server is busy or failing now: that is what a sweep measures
		// and counts, not a mistake in the command line.
		fmt.Fprintf(stderr, "toksweep: warning: the pre-flight request failed (%v); sweeping anyway, failures are counted per class\n", err)
		return res, nil
	}
	if ctx.Err() == nil && pctx.Err() != nil { // our limit, not Ctrl-C: the client calls it canceled
		err = fmt.Errorf("no answer from %s within %s, the pre-flight request's deadline", url, limit)
	}
	if hint := missingV1(ctx, t.Config, err); hint != nil {
		return res, hint
	}
	var re *client.RequestError
	if errors.As(err, &re) {
		if h := contextHint(re.Message, t.Config.MaxTokens, true); h != "" {
			return res, fmt.Errorf("pre-flight check failed, no load sent: %w (%s)", err, h)
		}
	}
	return res, checkFailed(err, false)
}

func cmpOr(a, b time.Duration) time.Duration {
	if a > 0 {
		return a
	}
	return b
}

// Output is the pre-flight's max_tokens: Tokens, or maxTokens
// (--max-tokens) when lower (no longer than a measured request), or the
// min_tokens floor of extraBody when it is higher (a server refuses min >
// max).
func Output(maxTokens int, extraBody map[string]any) int {
	n := Tokens
	if maxTokens > 0 {
		n = min(n, maxTokens)
	}
	switch v := extraBody["min_tokens"].(type) {
	case int:
		n = max(n, v)
	case float64:
		n = max(n, int(min(v, 1<<20)))
	}
	return n
}

// listedContext is the model's context length as /models lists it, when
// --model was given (Model reads it otherwise). The listing is a courtesy:
// any failure leaves it unknown (0), and it waits no longer than the
// connect timeout, as the connection warm-up does.
func listedContext(ctx context.Context, cl *client.Client, cfg client.Config) int {
	lctx, cancel := context.WithTimeout(ctx, cfg.ConnectTimeout)
	defer cancel()
	models, err := cl.ListModels(lctx)
	if err != nil {
		return 0
	}
	for _, m := range models {
		if m.ID == cfg.Model {
			return m.MaxModelLen
		}
	}
	return 0
}

// waitNotice says on w that the pre-flight request is waiting for an
// answer, once it has waited after: on a terminal as a live line that
// counts the seconds, elsewhere as one line now and then. The returned
// stop ends it (and clears the live line).
func waitNotice(w io.Writer, url string, limit, after time.Duration) (stop func()) {
	live := progress.IsTerminal(w)
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
				t.Reset(progress.Every)
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
