package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// stdChunk is the minimal struct encoding/json decodes an event into. It is
// the definition of what an event means; parseChunk is a faster reading of
// the same thing.
type stdChunk struct {
	Choices []struct {
		Delta struct {
			Content          string `json:"content"`
			ReasoningContent string `json:"reasoning_content"`
			Reasoning        string `json:"reasoning"`
		} `json:"delta"`
		Text         string `json:"text"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		Details          *struct {
			ReasoningTokens int `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
	Sent  optInt          `json:"x_sent_unix_ns"`
}

// optInt is an integer member that may be absent, or of another type.
type optInt struct {
	ok bool
	v  int64
}

// UnmarshalJSON implements json.Unmarshaler: an integer sets the value,
// anything else leaves it absent.
func (o *optInt) UnmarshalJSON(b []byte) error {
	if v, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		o.ok, o.v = true, v
	}
	return nil
}

var _ json.Unmarshaler = (*optInt)(nil)

// parseChunkStd is parseChunk done with encoding/json: slower, allocating,
// and the reference the fast scanner is fuzzed against.
func parseChunkStd(data []byte, c *chunk) bool {
	*c = chunk{}
	var s stdChunk
	if err := json.Unmarshal(data, &s); err != nil {
		var typeErr *json.UnmarshalTypeError
		if !errors.As(err, &typeErr) {
			return false // not JSON
		}
	}
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return false
	}
	for _, ch := range s.Choices {
		d := ch.Delta
		c.content = c.content || d.Content != "" || ch.Text != ""
		c.reasoning = c.reasoning || d.ReasoningContent != "" || d.Reasoning != ""
		if ch.FinishReason != "" {
			c.finish = []byte(ch.FinishReason)
		}
	}
	if u := s.Usage; u != nil {
		c.usage = usage{prompt: u.PromptTokens, completion: u.CompletionTokens}
		if u.Details != nil {
			c.usage.reasoning = u.Details.ReasoningTokens
		}
		c.hasUsage = true
	}
	c.normalizeUsage()
	if len(s.Error) > 0 && string(s.Error) != "null" {
		c.errVal = s.Error
	}
	c.hasSent, c.sent = s.Sent.ok, s.Sent.v
	return true
}

// foldEqual reports whether encoding/json would match key to name, a
// lower-case ASCII field name: it compares the two as encoding/json's
// foldName does (ASCII upper case, other runes to the smallest rune of their
// case-folding orbit, so the Kelvin sign matches 'k').
func foldEqual(key []byte, name string) bool {
	j := 0
	for i := 0; i < len(key); j++ {
		r := rune(upper(key[i]))
		if key[i] < utf8.RuneSelf {
			i++
		} else {
			var n int
			r, n = utf8.DecodeRune(key[i:])
			i += n
			r = foldRune(r)
		}
		if j >= len(name) || r != rune(upper(name[j])) {
			return false
		}
	}
	return j == len(name)
}

func upper(b byte) byte {
	if 'a' <= b && b <= 'z' {
		return b - ('a' - 'A')
	}
	return b
}

// foldRune returns the smallest rune in r's case-folding orbit, as
// encoding/json does.
func foldRune(r rune) rune {
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}
