package sim

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/toksweep/toksweep/internal/tokcount"
)

// fillerWords is the vocabulary of the generated text, one word after
// another.
var fillerWords = strings.Fields(`the quick brown fox jumps over a lazy dog while
	seven tired engineers measure tokens per second on busy servers and
	every number tells a story about queues batches caches and time`)

// fillerText is the text of generated tokens [from, to) of a reply whose
// first word is word g0 of its conversation (the number of words in the
// prompt). The words are cut into tokens the way the prompt rule counts
// them at their place (tokens.go: word g of a conversation owns tokens
// ceil(1.3g) to ceil(1.3(g+1)), one or two), a word of two tokens in two
// pieces, so the reply sent back in the next turn's history counts exactly
// the tokens generated, with the same ids, as a real tokenizer re-reads a
// model's own output.
func fillerText(g0, from, to int) string {
	var b strings.Builder
	t0 := tokcount.FromWords(g0)
	for t := t0 + from; t < t0+to; t++ {
		g := t * 10 / 13 // the last word with tokcount.FromWords(g) ≤ t: the one holding token t
		w := fillerWords[(g-g0)%len(fillerWords)]
		half := (len(w) + 1) / 2
		switch {
		case tokcount.FromWords(g+1)-tokcount.FromWords(g) == 1:
			b.WriteString(w)
			b.WriteByte(' ')
		case t == tokcount.FromWords(g):
			b.WriteString(w[:half])
		default:
			b.WriteString(w[half:])
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func nowUnix() int64 { return time.Now().Unix() }

func errShuttingDown() *apiError {
	return newAPIError(http.StatusServiceUnavailable, "The server is shutting down.")
}

// await blocks until the scheduler reports progress on sq. It reports false
// when the client has gone (and then aborts sq) or the server is closing.
func (s *Server) await(ctx context.Context, sq *seq) bool {
	select {
	case <-sq.notify:
		return true
	case <-ctx.Done():
		s.eng.abort(sq)
		return false
	case <-s.eng.done:
		return false
	}
}

// respond answers a non-streaming request with one body once it finishes.
func (s *Server) respond(w http.ResponseWriter, r *http.Request, sq *seq, p *plan) {
	for {
		if _, done := sq.progress(); done {
			break
		}
		if !s.await(r.Context(), sq) {
			writeError(w, errShuttingDown()) // or nobody is listening any more
			return
		}
	}
	p.cached = sq.cachedTokens()
	writeJSON(w, http.StatusOK, p.body())
}

// stream answers a streaming request: one SSE event per chunk, each flushed
// as soon as the scheduler has produced it.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, sq *seq, p *plan, f fate) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	out := &sseWriter{w: w, rc: http.NewResponseController(w), stamp: s.cfg.StampSendTime}
	if out.flush() != nil { // headers first, as vLLM's StreamingResponse does
		s.eng.abort(sq)
		return
	}
	half, sent, garbled := p.target/2, 0, false
	for s.await(r.Context(), sq) {
		n, done := sq.progress()
		for sent < n {
			if f.cut && sent >= half {
				s.eng.abort(sq)
				panic(http.ErrAbortHandler) // net/http drops the connection mid-stream
			}
			if f.malformed && !garbled && sent >= half {
				out.raw(p.malformedEvent())
				garbled = true
			}
			if sent == 0 && p.api == chatAPI {
				out.event(p.roleChunk()) // same flush as the first token
			}
			to := min(sent+p.perChunk, n)
			out.event(p.tokenChunk(sent, to))
			if out.flush() != nil {
				s.eng.abort(sq)
				return
			}
			sent = to
		}
		if done {
			p.cached = sq.cachedTokens()
			out.event(p.finalChunk())
			if p.includeUsage {
				out.event(p.usageChunk())
			}
			out.raw("[DONE]")
			_ = out.flush()
			return
		}
	}
}

// sseWriter buffers SSE events and writes and flushes them together.
type sseWriter struct {
	w     http.ResponseWriter
	rc    *http.ResponseController
	stamp bool
	buf   []byte
}

// event appends one "data: {json}" event. With stamp set, the JSON object
// gets "x_sent_unix_ns" last, taken now, just before the write.
func (o *sseWriter) event(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic("sim: marshaling a chunk: " + err.Error()) // our own types: cannot happen
	}
	o.buf = append(o.buf, "data: "...)
	if o.stamp {
		o.buf = append(o.buf, b[:len(b)-1]...)
		o.buf = append(o.buf, `,"x_sent_unix_ns":`...)
		o.buf = strconv.AppendInt(o.buf, time.Now().UnixNano(), 10)
		o.buf = append(o.buf, '}')
	} else {
		o.buf = append(o.buf, b...)
	}
	o.buf = append(o.buf, "\n\n"...)
}

// raw appends "data: s" verbatim.
func (o *sseWriter) raw(s string) {
	o.buf = append(o.buf, "data: "...)
	o.buf = append(o.buf, s...)
	o.buf = append(o.buf, "\n\n"...)
}

// flush writes the buffered events and flushes them to the client.
func (o *sseWriter) flush() error {
	_, err := o.w.Write(o.buf)
	o.buf = o.buf[:0]
	if err != nil {
		return err
	}
	return o.rc.Flush()
}
