package client

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

const (
	// defaultChunkCap sizes ChunkAt when the request sets no max_tokens;
	// maxChunkCap bounds the preallocation a huge max_tokens would ask for.
	defaultChunkCap = 256
	maxChunkCap     = 4096
	// drainWait and maxDrain bound the read after [DONE]: the body is read
	// to its end, so that the connection can be reused, but for no longer
	// than drainWait nor beyond maxDrain bytes.
	drainWait = 100 * time.Millisecond
	maxDrain  = 64 << 10
	// maxErrorBody bounds what is read of an error response.
	maxErrorBody = 64 << 10
)

// Do sends one streamed request and measures it. It never returns an error:
// a failure is data in the Record (ErrorClass and a one-line Error). Do sets
// PromptID and the measurements; Concurrency, Worker, Seq and Warmup are the
// caller's. Config.RequestTimeout bounds the whole request.
func (c *Client) Do(ctx context.Context, p Prompt) Record {
	return c.Send(ctx, c.Prepare(ctx, p))
}

// Probe is the check to run before any load. It sends the real request (the
// real prompt and max_tokens, so a request over the context length gets the
// server's 400) and cancels it as soon as a 2xx response has delivered its
// first event, which stops the server's work but also closes the
// connection: a probe leaves no connection in the pool (WarmConns does).
// It returns nil, or a *RequestError.
func (c *Client) Probe(ctx context.Context, p Prompt) error {
	var rec Record
	if e := c.exchange(ctx, p, &rec, 1); e != nil {
		return e
	}
	return nil
}

// Check is the pre-flight request: it sends p and reads its answer to the
// end, like Do, so that the server has finished it before any load starts,
// and returns the measured Record and nil, or a *RequestError (an error
// event inside an HTTP 200 stream included). The caller sets p.MaxTokens to
// keep it short.
func (c *Client) Check(ctx context.Context, p Prompt) (Record, error) {
	rec := Record{PromptID: p.ID}
	if e := c.exchange(ctx, p, &rec, 0); e != nil {
		rec.ErrorClass, rec.Error = e.Class, e.format(false)
		return rec, e
	}
	return rec, nil
}

// Prepared is a request built ahead of its send (Prepare): its body
// encoded, its *http.Request made and its record's token slots allocated,
// so that Send does only the round trip. A Prepared is sent once.
type Prepared struct {
	p     Prompt
	req   *http.Request // nil when building failed: err says why
	err   string
	bound int             // maxEvents of the request
	chunk []time.Duration // the record's ChunkAt, empty, presized
	est   int             // the record's PromptEstimate
}

// Prompt is the prompt pr was built from.
func (pr *Prepared) Prompt() Prompt { return pr.p }

// Prepare builds p's request, off the clock: a token-id prompt of
// thousands of ids takes tens of microseconds to encode, and the
// allocations to garbage-collect. Send(ctx, Prepare(ctx, p)) is Do(ctx, p).
func (c *Client) Prepare(ctx context.Context, p Prompt) *Prepared {
	maxTokens := c.cfg.MaxTokens
	if p.MaxTokens > 0 {
		maxTokens = p.MaxTokens
	}
	pr := &Prepared{p: p}
	body := &c.body
	v := c.variant(p)
	if v != nil {
		body = &v.body
	}
	pr.est = body.estimate(p)
	req, err := c.newRequest(ctx, http.MethodPost, c.endpoint, body.build(p, maxTokens))
	if err != nil {
		pr.err = err.Error()
		return pr
	}
	if v != nil {
		setHeaders(req, v.headers)
	}
	req.Header.Set("Accept", "text/event-stream")
	pr.req = req
	pr.bound = maxEvents(c.sentMaxTokens(maxTokens))
	if maxTokens <= 0 {
		maxTokens = defaultChunkCap
	}
	pr.chunk = make([]time.Duration, 0, min(maxTokens, maxChunkCap))
	return pr
}

// Send sends a request built by Prepare and measures it, as Do does; its
// Start is stamped here, when the round trip begins.
func (c *Client) Send(ctx context.Context, pr *Prepared) Record {
	rec := Record{PromptID: pr.p.ID}
	if e := c.send(ctx, pr, &rec, 0); e != nil {
		rec.ErrorClass = e.Class
		rec.Error = e.format(false)
	}
	return rec
}

// exchange performs one request, reading at most limit events (0: all),
// and fills rec. It returns the failure, or nil.
func (c *Client) exchange(parent context.Context, p Prompt, rec *Record, limit int) *RequestError {
	return c.send(parent, c.Prepare(parent, p), rec, limit)
}

// send is exchange's round trip, of a request built by Prepare.
func (c *Client) send(parent context.Context, pr *Prepared, rec *Record, limit int) *RequestError {
	if pr.req == nil {
		return c.failure(Connect, 0, c.showEndpoint, pr.err)
	}
	p, req, bound := pr.p, pr.req, pr.bound
	rec.ChunkAt, rec.PromptEstimate = pr.chunk, pr.est
	*pr = Prepared{p: p, err: "a prepared request was sent twice"} // its body is read

	// The timeout is armed after Start is stamped, so that a timed-out
	// record's End - Start is never under Config.RequestTimeout.
	rec.Start = c.Now()
	ctx, cancel := c.requestContext(parent)
	defer cancel()
	resp, err := c.hc.Do(req.WithContext(ctx))
	if err != nil {
		rec.End = c.Now()
		return c.transportFailure(parent, ctx, err, c.showEndpoint)
	}
	rec.Header = c.Now()
	rec.Status = resp.StatusCode
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := c.httpFailure(resp, c.showEndpoint)
		rec.End = c.Now()
		return e
	}
	s := stream{maxEvents: bound}
	if p.KeepReply {
		s.reply = &replyText{}
	}
	e := c.readStream(parent, ctx, cancel, resp, rec, s, limit)
	rec.Reply = s.reply.String()
	return e
}

// sentMaxTokens is the output bound the server was sent: maxTokens, unless
// --extra-body sets max_tokens or max_completion_tokens itself (0: unknown).
func (c *Client) sentMaxTokens(maxTokens int) int {
	_, mct := c.cfg.ExtraBody["max_completion_tokens"]
	if !c.body.sendMax || mct {
		return 0
	}
	return maxTokens
}

// readStream reads a 2xx response's events into rec and classifies the end.
func (c *Client) readStream(parent, ctx context.Context, cancel context.CancelFunc,
	resp *http.Response, rec *Record, s stream, limit int,
) *RequestError {
	defer resp.Body.Close()
	r := newSSEReader(resp.Body, c.Now)
	defer r.free()
	s.rec, s.epochNS, s.scrub, s.streamed = rec, c.epochNS, c.scrub, c.cfg.Streamed
	err := s.read(r, limit)
	if f := rec.FinishReason; f != "" && f != "stop" && f != "length" {
		rec.FinishReason = c.scrub(f) // the server's text, saved in requests.jsonl
	}
	if !s.done {
		rec.End = c.Now()
	}
	e := c.streamFailure(parent, ctx, &s, err, resp.Header.Get("Content-Type"))
	switch {
	case s.done:
		drain(r, cancel)
	case err == nil, e != nil && e.Class == Overrun: // the probe's limit, or a bound: stop the server's work
		cancel()
	}
	return e
}

// streamFailure classifies how a stream ended. readErr is what stopped the
// reading: nil after [DONE] or the event limit, io.EOF at a clean end of
// input. Priority: Canceled > Timeout > Overrun > StreamError/HTTP429 >
// Truncated > Malformed > Empty (a whole answer without a single token).
func (c *Client) streamFailure(parent, ctx context.Context, s *stream, readErr error, ctype string) *RequestError {
	url, rec := c.showEndpoint, s.rec
	ended := readErr == nil || rec.FinishReason != "" // finished, even if no [DONE] follows
	if readErr != nil && readErr != io.EOF {
		switch {
		case parent.Err() != nil:
			return c.failure(Canceled, rec.Status, url, "")
		case ctx.Err() != nil:
			return c.failure(Timeout, rec.Status, url, fmt.Sprintf(
				"no complete response within %s (%d token chunks received)",
				c.cfg.RequestTimeout, len(rec.ChunkAt)))
		}
	}
	switch {
	case readErr == errTooManyEvents:
		return c.failure(Overrun, rec.Status, url, fmt.Sprintf(
			"more than %d events, the bound for this request (2×max_tokens+%d, or %d when max_tokens is not known); reading stopped",
			cmp.Or(s.maxEvents, defaultMaxEvents), eventMargin, defaultMaxEvents))
	case readErr == errEventTooLong:
		return c.failure(Overrun, rec.Status, url, readErr.Error()+"; reading stopped")
	case s.fail != OK:
		return c.failure(s.fail, rec.Status, url, s.failMsg)
	case !ended && s.events == 0 && readErr == io.EOF:
		return c.failure(Truncated, rec.Status, url, fmt.Sprintf(
			"the response has no SSE events (Content-Type %q)", ctype))
	case !ended:
		return c.failure(Truncated, rec.Status, url, describeReadError(readErr))
	case rec.MalformedChunks > 0:
		return c.failure(Malformed, rec.Status, url, fmt.Sprintf(
			"%d malformed data events; the first: %s", rec.MalformedChunks, s.badMsg))
	case readErr == nil && !s.done && rec.FinishReason == "":
		return nil // the probe's event limit: the answer is not over
	case len(rec.ChunkAt) == 0:
		return c.failure(Empty, rec.Status, url, fmt.Sprintf(
			"the stream ended (finish_reason %q) without a single token", rec.FinishReason))
	}
	return nil
}

// drain reads what follows [DONE] (normally just the end of the chunked
// body), so that the connection goes back to the pool, but gives up after
// drainWait by canceling the request.
func drain(r *sseReader, cancel context.CancelFunc) {
	t := time.AfterFunc(drainWait, cancel)
	defer t.Stop()
	_, _ = io.CopyN(io.Discard, r.br, maxDrain)
}

// transportFailure classifies a request that got no response: no
// connection (Connect), or a reply net/http could not read as HTTP
// (Malformed, with status 0).
func (c *Client) transportFailure(parent, ctx context.Context, err error, url string) *RequestError {
	switch {
	case parent.Err() != nil:
		return c.failure(Canceled, 0, url, "")
	case ctx.Err() != nil:
		return c.failure(Timeout, 0, url, fmt.Sprintf("no response within %s", c.cfg.RequestTimeout))
	}
	if msg := invalidResponse(err); msg != "" { // connected, but the reply is not HTTP
		return c.failure(Malformed, 0, url, msg)
	}
	return c.failure(Connect, 0, c.showBase, describeNetError(err))
}

// httpFailure reads a non-2xx response's body for the server's message. A
// 3xx (redirects are never followed: see noRedirects) is described by its
// status and where it pointed, without credentials or query.
func (c *Client) httpFailure(resp *http.Response, url string) *RequestError {
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	body = []byte(c.scrub(string(body))) // before any cut: see failure
	msg := errorBodyMessage(body, resp.StatusCode)
	if resp.StatusCode/100 == 3 { // the body, if any, is a link to the Location
		msg = http.StatusText(resp.StatusCode)
		if loc, err := resp.Location(); err == nil {
			msg += " (a redirect to " + RedactURL(loc.String()) + ", not followed)"
		}
	}
	return c.failure(statusClass(resp.StatusCode), resp.StatusCode, url, msg)
}

// requestContext applies Config.RequestTimeout.
func (c *Client) requestContext(parent context.Context) (context.Context, context.CancelFunc) {
	if c.cfg.RequestTimeout > 0 {
		return context.WithTimeout(parent, c.cfg.RequestTimeout)
	}
	return context.WithCancel(parent)
}

// newRequest builds a request with the authentication and extra headers.
func (c *Client) newRequest(ctx context.Context, method, url string, body []byte) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	setHeaders(req, c.cfg.Headers)
	return req, nil
}

// setHeaders sets h's headers on req, replacing any of the same name.
func setHeaders(req *http.Request, h http.Header) {
	for name, values := range h {
		req.Header[http.CanonicalHeaderKey(name)] = values
	}
	// net/http sends req.Host, never a Host entry of req.Header: a --header
	// "Host: x" goes out only this way.
	if host := req.Header.Get("Host"); host != "" {
		req.Host = host
		req.Header.Del("Host")
	}
}
