package client

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// Bounds on what one request may hold (docs/guide.md, "Bounds"). Every
// token-carrying chunk costs a timestamp (two with send stamps), so a
// server that streams forever would otherwise grow a Record without end.
const (
	// eventMargin is how many events (data or error, [DONE] aside) a
	// request may receive beyond 2×max_tokens: one token per chunk plus the
	// role, finish and usage chunks fit many times over.
	eventMargin = 64
	// defaultMaxEvents bounds a request whose max_tokens toksweep does not
	// know (not sent, or set through --extra-body); hardMaxEvents bounds
	// any request (32 MiB of timestamps).
	defaultMaxEvents = 1 << 17
	hardMaxEvents    = 1 << 22
	// maxFinishReason bounds the finish_reason kept from the server.
	maxFinishReason = 64
)

// maxEvents is the event bound of a request with this max_tokens (≤ 0:
// unknown).
func maxEvents(maxTokens int) int {
	if maxTokens <= 0 {
		return defaultMaxEvents
	}
	return min(2*min(maxTokens, hardMaxEvents/2)+eventMargin, hardMaxEvents) // no overflow near MaxInt
}

// errTooManyEvents ends a stream that sent more events than its bound.
var errTooManyEvents = errors.New("too many events")

// stream turns one response's events into the measurements of its Record.
// It knows SSE events and chunks, not HTTP.
type stream struct {
	rec       *Record
	epochNS   int64               // the run epoch in Unix nanoseconds, for SendLag
	scrub     func(string) string // removes credentials from server text
	maxEvents int                 // the bound on events; 0 means defaultMaxEvents
	streamed  *atomic.Int64       // Config.Streamed: counts token chunks live; may be nil
	reply     *replyText          // collects the content text; nil unless Prompt.KeepReply
	c         chunk               // reused for every event

	done    bool       // [DONE] seen
	events  int        // non-empty events seen, of any kind
	fail    ErrorClass // the first error event's class (StreamError or HTTP429)
	failMsg string
	badMsg  string // describes the first malformed event

	// Usage seen so far, settled into the Record at the end (settleUsage).
	usage      usage // the last usage object with a non-zero count
	counted    usage // the last one with completion_tokens > 0
	prompt     int   // the last non-zero prompt_tokens
	sawUsage   bool
	sawCounted bool
}

// read consumes events until [DONE], the end of input, or limit events
// (0: no limit). It returns nil after [DONE] or at the limit, else what
// ended the input (io.EOF when it ended cleanly, errTooManyEvents or
// errEventTooLong at a bound).
func (s *stream) read(r *sseReader, limit int) error {
	defer s.settleUsage()
	bound := cmp.Or(s.maxEvents, defaultMaxEvents)
	for {
		data, at, k, err := r.next()
		if err != nil {
			return err
		}
		if s.events >= bound && (k == errorEvent || len(data) > 0 && !isDone(data)) {
			return errTooManyEvents
		}
		s.event(data, at, k)
		if s.done {
			s.rec.End = at
			return nil
		}
		if limit > 0 && s.events >= limit {
			return nil
		}
	}
}

// event applies one event that arrived at at (an offset from the epoch).
func (s *stream) event(data []byte, at time.Duration, k eventKind) {
	if k == errorEvent {
		s.events++
		s.streamError(data)
		return
	}
	if len(data) == 0 {
		return // "data:" alone carries nothing
	}
	s.events++
	if isDone(data) {
		s.done = true
		return
	}
	if !parseChunk(data, &s.c) {
		s.rec.MalformedChunks++
		if s.badMsg == "" {
			bad := s.scrub(string(data))
			s.badMsg = fmt.Sprintf("data event is not a JSON object: %q", bad[:min(len(bad), 60)])
		}
		return
	}
	s.apply(&s.c, at)
	if s.reply != nil && s.c.content {
		s.reply.add(data)
	}
}

// isDone reports whether an event's data is the [DONE] sentinel.
func isDone(data []byte) bool {
	return len(data) < 16 && string(bytes.TrimSpace(data)) == "[DONE]"
}

// apply records one well-formed chunk.
func (s *stream) apply(c *chunk, at time.Duration) {
	rec := s.rec
	if c.content || c.reasoning {
		if s.streamed != nil {
			s.streamed.Add(1)
		}
		rec.ChunkAt = append(rec.ChunkAt, at-rec.Start)
		if len(rec.ChunkAt) == 1 {
			rec.FirstToken = at
		}
		rec.LastToken = at
		if !c.content {
			rec.ReasoningChunks++
		} else if rec.FirstContent == 0 {
			rec.FirstContent = at
		}
		if c.hasSent {
			if rec.SendLag == nil {
				rec.SendLag = make([]time.Duration, 0, cap(rec.ChunkAt))
			}
			rec.SendLag = append(rec.SendLag, time.Duration(s.epochNS+int64(at)-c.sent))
		}
	}
	if f := cutUTF8(c.finish, maxFinishReason); len(f) > 0 && string(f) != rec.FinishReason {
		rec.FinishReason = string(f)
	}
	if c.hasUsage { // all-zero usage never counts: see the package doc
		s.usage, s.sawUsage = c.usage, true
		if c.usage.prompt > 0 && c.usage.prompt <= MaxPromptTokens { // an absurd count is not kept
			s.prompt = c.usage.prompt
		}
		if c.usage.completion > 0 {
			s.counted, s.sawCounted = c.usage, true
		}
	}
	if c.errVal != nil {
		s.streamError(c.errVal)
	}
}

// settleUsage sets the Record's usage once the stream has ended, by the
// rule in the package doc: prompt_tokens from any usage; completion_tokens
// (and HasUsage) from the last usage that counted completion tokens, or,
// when there was none, from the last usage only if no token chunk came. A
// usage that says 0 completion tokens after K > 0 token chunks is wrong,
// and the output falls back to K.
func (s *stream) settleUsage() {
	rec := s.rec
	if !s.sawUsage {
		return
	}
	rec.PromptTokens = s.prompt
	switch {
	case s.sawCounted:
		rec.HasUsage, rec.CompletionTokens, rec.ReasoningTokens = true, s.counted.completion, s.counted.reasoning
	case len(rec.ChunkAt) == 0:
		rec.HasUsage, rec.CompletionTokens, rec.ReasoningTokens = true, s.usage.completion, s.usage.reasoning
	}
}

// streamError records the first error event of the stream.
func (s *stream) streamError(raw []byte) {
	if s.fail != OK {
		return
	}
	var msg string
	s.fail, msg = errorEventInfo([]byte(s.scrub(string(raw))))
	s.failMsg = oneLine(msg, maxMessage) // the event may be megabytes
}

// cutUTF8 returns b cut to at most n bytes, at a UTF-8 boundary.
func cutUTF8(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return b[:n]
}

// errorEventInfo reads an error event: an OpenAI error object (its code an
// int, a string or null, which openai.APIError copes with), the same object
// wrapped in {"error": ...}, or a bare string (TGI).
func errorEventInfo(raw []byte) (ErrorClass, string) {
	raw = bytes.TrimSpace(raw)
	var msg string
	if json.Unmarshal(raw, &msg) == nil {
		return StreamError, cmp.Or(msg, "error event")
	}
	var wrapped openai.ErrorResponse
	apiErr := new(openai.APIError)
	if json.Unmarshal(raw, &wrapped) == nil && wrapped.Error != nil {
		apiErr = wrapped.Error
	} else if json.Unmarshal(raw, apiErr) != nil {
		return StreamError, "error event: " + string(raw[:min(len(raw), 200)])
	}
	class, msg := StreamError, cmp.Or(apiErr.Message, "error event")
	// APIError decodes "code": null as the int 0.
	if code := fmt.Sprint(apiErr.Code); apiErr.Code != nil && code != "0" && code != "" {
		if code == "429" {
			class = HTTP429
		}
		msg += " (code " + code + ")"
	}
	return class, msg
}
