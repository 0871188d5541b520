package sim

import (
	"bytes"
	"encoding/json"
)

// decodeRequest decodes a generation request's body into req as
// json.Decoder.Decode does (the first JSON value; what follows it is not
// read), but reads a completions prompt that is a plain list of token ids
// by hand (plainIDs) and hands encoding/json only the rest of the body:
// encoding/json took 0.7 ms of CPU for a 2,000-id prompt (17 MB/s on the
// 2-core development VM), scanning the list once for the RawMessage and
// again for the ints, which at a replay's 400 requests per second held the
// server's cores long enough to read other requests late. Any body the
// hand reader does not fully understand (an escape in a key, a key that
// matches "prompt" only case-insensitively, two prompts, a number that is
// not a plain integer, malformed JSON) goes to encoding/json whole, so its
// result and errors are exactly encoding/json's.
func decodeRequest(body []byte, req *genRequest) error {
	if ids, rest, ok := plainIDs(body); ok {
		if err := json.Unmarshal(rest, req); err == nil && req.Prompt == nil {
			req.ids = ids
			return nil
		}
		*req = genRequest{}
	}
	return json.NewDecoder(bytes.NewReader(body)).Decode(req)
}

// plainIDs reads body's first JSON value when it is an object with exactly
// one member whose key is "prompt" (no other key equal to it in any case),
// whose value is a non-empty list of plain integers (-?[0-9]+, no leading
// zeros, at most 18 digits) that fit an int64, and returns the ids (as
// uint32, as completionPromptIDs converts them) and the object without
// that member. ok is false for anything else, including any malformed
// JSON before the object's end; what follows the object is not looked at.
func plainIDs(body []byte) (ids []uint32, rest []byte, ok bool) {
	s := scanner{b: body}
	s.space()
	if !s.byte('{') {
		return nil, nil, false
	}
	from, to := -1, -1 // the prompt member's span: from after the '{' or comma before it to after its comma, or to the '}'
	last := false      // the prompt is the last member
	for {
		memberStart := s.i
		s.space()
		key, plain := s.str()
		if !plain {
			return nil, nil, false // an empty object, too: it has no prompt
		}
		s.space()
		if !s.byte(':') {
			return nil, nil, false
		}
		s.space()
		prompt := string(key) == "prompt"
		switch {
		case prompt && from >= 0:
			return nil, nil, false // two prompts: encoding/json keeps the last
		case prompt:
			if ids, ok = s.ints(); !ok {
				return nil, nil, false
			}
		case bytes.EqualFold(key, []byte("prompt")):
			return nil, nil, false // encoding/json would take it for the prompt
		default:
			if !s.skip(0) {
				return nil, nil, false
			}
		}
		s.space()
		switch {
		case s.byte(','):
			if prompt {
				from, to = memberStart, s.i
			}
			continue
		case s.byte('}'):
			if prompt {
				from, to, last = memberStart, s.i-1, true
			}
		default:
			return nil, nil, false
		}
		break
	}
	if from < 0 {
		return nil, nil, false
	}
	head, tail := body[:from], body[to:s.i]
	if last && from > 0 && body[from-1] == ',' {
		head = body[:from-1] // the comma before it goes with it
	}
	rest = make([]byte, 0, len(head)+len(tail))
	rest = append(append(rest, head...), tail...)
	return ids, rest, true
}

// maxSkipDepth bounds the nesting scanner.skip follows; deeper bodies go
// to encoding/json, which has its own bound.
const maxSkipDepth = 64

// scanner reads JSON from b at i.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// byte consumes c if it is next.
func (s *scanner) byte(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// str reads a string with no escapes and no control characters and
// returns its bytes; plain is false for any other next token.
func (s *scanner) str() (v []byte, plain bool) {
	if !s.byte('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], true
		case c == '\\' || c < 0x20:
			return nil, false
		}
		s.i++
	}
	return nil, false
}

// ints reads a non-empty list of plain integers.
func (s *scanner) ints() ([]uint32, bool) {
	if !s.byte('[') {
		return nil, false
	}
	rest := s.b[s.i:]
	ids := make([]uint32, 0, min(bytes.Count(rest[:max(bytes.IndexByte(rest, ']'), 0)], []byte{','})+1, maxPresize))
	for {
		s.space()
		n, ok := s.integer()
		if !ok {
			return nil, false
		}
		ids = append(ids, uint32(n))
		s.space()
		if s.byte(']') {
			return ids, true
		}
		if !s.byte(',') {
			return nil, false
		}
	}
}

// integer reads -?(0|[1-9][0-9]*) of at most 18 digits, whose value fits
// an int64 however it is signed.
func (s *scanner) integer() (int64, bool) {
	neg := s.byte('-')
	start := s.i
	var n int64
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		n = n*10 + int64(s.b[s.i]-'0')
		s.i++
	}
	digits := s.i - start
	if digits == 0 || digits > 18 || (digits > 1 && s.b[start] == '0') {
		return 0, false
	}
	if s.i < len(s.b) {
		switch s.b[s.i] {
		case '.', 'e', 'E': // a number encoding/json would not put in an int
			return 0, false
		}
	}
	if neg {
		n = -n
	}
	return n, true
}

// skip passes over one JSON value (any kind), checking it as far as it
// needs to find its end; false for what it cannot pass.
func (s *scanner) skip(depth int) bool {
	if s.i >= len(s.b) || depth > maxSkipDepth {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		return s.skipString()
	case c == '{' || c == '[':
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		s.i++
		s.space()
		if s.byte(closing) {
			return true
		}
		for {
			s.space()
			if c == '{' {
				if !s.skipString() {
					return false
				}
				s.space()
				if !s.byte(':') {
					return false
				}
				s.space()
			}
			if !s.skip(depth + 1) {
				return false
			}
			s.space()
			if s.byte(closing) {
				return true
			}
			if !s.byte(',') {
				return false
			}
		}
	case c == 't':
		return s.word("true")
	case c == 'f':
		return s.word("false")
	case c == 'n':
		return s.word("null")
	default:
		return s.skipNumber()
	}
}

func (s *scanner) word(w string) bool {
	if bytes.HasPrefix(s.b[s.i:], []byte(w)) {
		s.i += len(w)
		return true
	}
	return false
}

// skipString passes over a string, escapes included; it leaves checking
// them to encoding/json, which decodes the rest of the body.
func (s *scanner) skipString() bool {
	if !s.byte('"') {
		return false
	}
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return true
		case c == '\\':
			s.i += 2
			continue
		case c < 0x20:
			return false
		}
		s.i++
	}
	return false
}

// skipNumber passes over a JSON number's characters.
func (s *scanner) skipNumber() bool {
	start := s.i
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
			s.i++
		default:
			return s.i > start
		}
	}
	return s.i > start
}

// failingReader fails every read with err.
type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }
