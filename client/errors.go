package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// RequestError is a failed request as Probe and ListModels return it. Error
// gives one actionable line; Do records the same line without the URL.
// No field ever holds the API key or other credentials.
type RequestError struct {
	Class   ErrorClass
	Status  int    // HTTP status; 0 when no response arrived
	URL     string // what was requested, without credentials or query
	Message string // the server's or the network's own words, on one line
}

// Error implements error.
func (e *RequestError) Error() string { return e.format(true) }

var _ error = (*RequestError)(nil)

// format renders the error on one line, naming the URL when withURL is set.
func (e *RequestError) format(withURL bool) string {
	from, to := "", ""
	if withURL && e.URL != "" {
		from, to = " from "+e.URL, " to "+e.URL
	}
	msg := e.Message
	switch {
	case e.Class == Connect:
		return "cannot connect" + to + ": " + msg
	case e.Class == Timeout:
		return "request" + to + " timed out: " + msg
	case e.Class == Canceled:
		return "request" + to + " canceled"
	case e.Class == Truncated:
		return "incomplete stream" + from + ": " + msg
	case e.Class == Malformed && e.Status == 0: // see invalidResponse
		return "invalid HTTP response" + from + ": " + msg
	case e.Class == Malformed:
		return "malformed response" + from + ": " + msg
	case e.Class == Empty:
		return "empty answer" + from + ": " + msg
	case e.Class == Overrun:
		return "stream over bounds" + from + ": " + msg
	case e.Class == StreamError || e.Status >= 200 && e.Status < 300: // an HTTP429 may come as an event
		return "error event in stream" + from + ": " + msg
	}
	hint := ""
	if e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden {
		hint = " (check --api-key / OPENAI_API_KEY)"
	}
	return "HTTP " + strconv.Itoa(e.Status) + from + ": " + msg + hint
}

// failure builds a RequestError, making msg one line free of secrets.
// Server-provided text must be scrubbed before it is cut, or a cut could
// leave part of a secret; failure scrubs again for the network's words.
func (c *Client) failure(class ErrorClass, status int, url, msg string) *RequestError {
	return &RequestError{Class: class, Status: status, URL: url, Message: oneLine(c.scrub(msg), maxMessage)}
}

// EventCode is the HTTP-like code an error event inside a 200 stream
// carried, as errorEventInfo writes it into the message ("... (code
// 400)"); 0 when the event had none. It lets a caller judge a
// StreamError like the status it stands for.
func EventCode(msg string) int {
	i := strings.LastIndex(msg, "(code ")
	if i < 0 || len(msg) < i+10 || msg[i+9] != ')' {
		return 0
	}
	n, err := strconv.Atoi(msg[i+6 : i+9])
	if err != nil || n < 100 {
		return 0
	}
	return n
}

// statusClass maps a non-2xx status to its class. Anything that is neither
// 429 nor 5xx (a 3xx that was not followed, say) counts as 4xx.
func statusClass(status int) ErrorClass {
	switch {
	case status == http.StatusTooManyRequests:
		return HTTP429
	case status >= 500:
		return HTTP5xx
	}
	return HTTP4xx
}

// maxMessage bounds a message taken from a server; maxRawBody bounds the
// part of an unparseable body that is quoted.
const (
	maxMessage = 1000
	maxRawBody = 200
)

// errorBodyMessage extracts the message of an error response body: an
// OpenAI error object (decoded by go-openai, which copes with a code that is
// an int, a string or null), {"error": "..."} (TGI), {"message": "..."} or
// {"detail": "..."} (FastAPI); else the body's first bytes.
func errorBodyMessage(body []byte, status int) string {
	var er openai.ErrorResponse
	if json.Unmarshal(body, &er) == nil && er.Error != nil && er.Error.Message != "" {
		return er.Error.Message
	}
	var alt struct {
		Error   any `json:"error"`
		Message any `json:"message"`
		Detail  any `json:"detail"`
	}
	if json.Unmarshal(body, &alt) == nil {
		for _, v := range []any{alt.Error, alt.Message, alt.Detail} {
			if s, ok := v.(string); ok && s != "" {
				return s
			}
		}
	}
	if body = bytes.TrimSpace(body); len(body) == 0 {
		return http.StatusText(status)
	}
	return oneLine(string(body), maxRawBody)
}

// describeNetError says in a few words why a request got no response.
func describeNetError(err error) string {
	var dnsErr *net.DNSError
	var errno syscall.Errno
	var opErr *net.OpError
	switch {
	case errors.As(err, &dnsErr):
		return dnsErr.Error()
	case errors.As(err, &errno):
		return errno.Error()
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the server closed the connection without a response"
	case errors.As(err, &opErr) && opErr.Op == "dial" && opErr.Timeout():
		return "connect timeout"
	}
	for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(u) {
		err = u // the innermost error has the words that matter
	}
	return err.Error()
}

// invalidResponse describes a reply that net/http could not read as an
// HTTP response (a garbage status line, a malformed header, headers over
// its limit), or returns "" for any other error. The connection succeeded
// then, so it is no "cannot connect". net/http gives these errors no type
// but textproto's, so the rest are known by their words.
func invalidResponse(err error) string {
	var pe textproto.ProtocolError
	inner := err
	for u := errors.Unwrap(inner); u != nil; u = errors.Unwrap(u) {
		inner = u
	}
	msg := strings.TrimPrefix(inner.Error(), "net/http: ")
	switch {
	case strings.HasPrefix(msg, "server response headers exceeded"):
		return "response header too large (" + msg + ")"
	case errors.As(err, &pe), strings.HasPrefix(msg, "malformed HTTP "), strings.HasPrefix(msg, "bad Content-Length"),
		strings.HasPrefix(msg, "unsupported transfer encoding"), strings.HasPrefix(msg, "too many transfer encodings"):
		return msg
	}
	return ""
}

// describeReadError says why a stream stopped before its end.
func describeReadError(err error) string {
	var errno syscall.Errno
	switch {
	case err == io.EOF:
		return "the response ended without finish_reason or [DONE]"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed mid-stream (unexpected EOF)"
	case errors.As(err, &errno):
		return errno.Error()
	}
	return err.Error()
}

// oneLine turns s into one line of at most limit bytes: control characters
// become spaces, runs of spaces shrink to one, and a cut is marked "...".
func oneLine(s string, limit int) string {
	var b strings.Builder
	space := false
	for _, r := range strings.TrimSpace(s) {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = true
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		if b.Len()+utf8.RuneLen(r) > limit {
			b.WriteString("...")
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}
