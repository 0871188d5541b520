package secrets

import (
	"encoding/json"

	"github.com/toksweep/toksweep/client"
)

// Scrubber replaces every credential a run knows with [REDACTED].
type Scrubber struct {
	scrub func(string) string
}

// New is the Scrubber of the credentials cfg makes the client send and of
// the userinfo and credential-like query values of urls (a metrics
// endpoint).
func New(cfg client.Config, urls ...string) Scrubber {
	return Scrubber{scrub: client.Scrubber(cfg, urls...)}
}

// Scrub returns s with every known credential replaced.
func (s Scrubber) Scrub(text string) string {
	if s.scrub == nil {
		return text
	}
	return s.scrub(text)
}

// JSON copies a decoded JSON value with every key and string scrubbed (a
// json.Number too, when it spells a credential).
func (s Scrubber) JSON(v any) any {
	switch x := v.(type) {
	case string:
		return s.Scrub(x)
	case json.Number:
		if c := s.Scrub(string(x)); c != string(x) {
			return c
		}
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[s.Scrub(k)] = s.JSON(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = s.JSON(e)
		}
		return a
	}
	return v
}

// Error returns err with its message scrubbed: err itself when the message
// holds no credential, else an error of the clean message that wraps err,
// so that errors.Is and errors.As still find what the chain holds. A type
// whose fields are printed rather than its message (a usage error) is the
// caller's to rebuild.
func (s Scrubber) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := s.Scrub(msg)
	if clean == msg {
		return err
	}
	return &scrubbedError{msg: clean, err: err}
}

type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }
