package client

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// API selects the OpenAI endpoint.
type API string

// The supported endpoints.
const (
	Chat        API = "chat"        // POST {base}/chat/completions, delta.content / delta.reasoning[_content]
	Completions API = "completions" // POST {base}/completions, choices[].text
)

// Config is everything the client needs to talk to one server. It holds the
// API key, so it is never serialised as is: use Redacted for output.
type Config struct {
	BaseURL string      // e.g. http://127.0.0.1:8000/v1 (no trailing slash needed)
	APIKey  string      // sent as "Authorization: Bearer KEY" when non-empty
	Headers http.Header // extra headers, sent on every request
	Model   string
	// Variants are other request settings a Prompt may select by
	// Prompt.Variant (a traffic class's model and headers, sweep
	// --class); their headers' credentials are scrubbed like Headers'.
	Variants []Variant
	API      API // Chat when empty

	MaxTokens   int      // sent as max_tokens (the field every OpenAI-compatible server accepts)
	Temperature *float64 // sent when non-nil, including 0
	// ExtraBody is merged into every request body last, so it may override
	// any field toksweep sets (e.g. {"ignore_eos": true, "min_tokens": 512}).
	ExtraBody map[string]any

	RequestTimeout time.Duration // whole-request deadline; 0 means none
	ConnectTimeout time.Duration // dial + TLS handshake; 0 means 10s
	Insecure       bool          // skip TLS verification (explicit opt-in)
	MaxConns       int           // connection pool size; the sweep sets it to the highest level

	// Streamed, when non-nil, is incremented once per token-carrying chunk
	// as it arrives (one atomic add: a live progress counter, read while
	// requests stream; chunks, not usage tokens).
	Streamed *atomic.Int64
}

// Prompt is one request's input: either a chat conversation or a plain
// completion prompt. For the chat API a Text-only prompt is sent as one user
// message; for the completions API Messages are flattened into Text.
type Prompt struct {
	ID        int       // index in the prompt set, recorded in Record.PromptID
	Text      string    // completion prompt, or the user message when Messages is empty
	Messages  []Message // chat conversation
	MaxTokens int       // overrides Config.MaxTokens when > 0
	// TokenIDs, when set, is the completions API's prompt as a list of
	// token ids (vLLM takes "prompt" as a list of ints), sent instead of
	// Text: its length is the prompt's exact token count, with no
	// tokenizer. The chat API cannot take ids and sends Text.
	TokenIDs []int
	// MinTokens, when > 0, is sent as min_tokens (vLLM, SGLang), so that a
	// server stops no earlier than this many tokens.
	MinTokens int
	// KeepReply asks Do to keep the streamed content text in Record.Reply
	// (at most MaxReplyBytes). Without it nothing is kept or decoded.
	KeepReply bool
	// Variant, when > 0, sends the prompt with Config.Variants[Variant-1]:
	// its model in place of Config.Model, its headers after
	// Config.Headers (replacing any of the same name).
	Variant int
}

// Variant is a set of request settings a Prompt may select: a model (""
// keeps Config.Model) and extra headers.
type Variant struct {
	Model   string
	Headers http.Header
}

// Message is one chat turn.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Redacted returns a copy of c that is safe to print or save: the API key
// and the values of credential-like headers (SensitiveHeader) are replaced
// by "[REDACTED]", and BaseURL is shown as RedactURL shows it (no
// credentials, no query).
func (c Config) Redacted() Config {
	const mark = "[REDACTED]"
	if c.APIKey != "" {
		c.APIKey = mark
	}
	c.BaseURL = RedactURL(c.BaseURL)
	redact := func(h http.Header) http.Header {
		h = h.Clone()
		for name := range h {
			if SensitiveHeader(name) {
				h[name] = []string{mark}
			}
		}
		return h
	}
	c.Headers = redact(c.Headers)
	vs := c.Variants
	c.Variants = nil
	for _, v := range vs {
		c.Variants = append(c.Variants, Variant{Model: v.Model, Headers: redact(v.Headers)})
	}
	return c
}

// ValidHeaderName reports whether name can be sent as a header name: an
// HTTP token (RFC 9110 5.1), as net/http requires.
func ValidHeaderName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 0x80 || !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return name != ""
}

// ValidHeaderValue reports whether v can be sent as a header value: no
// control character but the tab (CR, LF and NUL above all, which would
// end the header or smuggle another), as net/http requires.
func ValidHeaderValue(v string) bool {
	return !strings.ContainsFunc(v, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f })
}

// checkHeaders refuses extra headers that net/http would refuse to send,
// so that they fail in New rather than as a connection failure.
func checkHeaders(h http.Header) error {
	for name, values := range h {
		if !ValidHeaderName(name) {
			return fmt.Errorf("header name %q is not an HTTP token", name)
		}
		for _, v := range values {
			if !ValidHeaderValue(v) {
				return fmt.Errorf("the value of header %q holds a line break or another control character", name)
			}
		}
	}
	return nil
}
