package client

import "unicode/utf8"

// maxDepth is encoding/json's nesting limit. Using the same one keeps
// parseChunk's idea of valid JSON identical to json.Valid's.
const maxDepth = 10000

// chunk is what one data event says, as far as the measurements care.
// The byte slices point into the event data and live as long as it does.
type chunk struct {
	content   bool   // some choice has a non-empty delta.content or text
	reasoning bool   // some choice has a non-empty delta.reasoning_content or delta.reasoning
	finish    []byte // the last non-empty finish_reason, nil when there is none
	hasUsage  bool   // a usage object with at least one non-zero count
	usage     usage
	hasSent   bool // x_sent_unix_ns is present and an integer
	sent      int64
	errVal    []byte // the raw JSON of a non-null top-level "error" member
}

// usage is the part of a usage object that toksweep records.
type usage struct{ prompt, completion, reasoning int }

func (u *usage) zero() bool { return *u == usage{} }

// parseChunk decodes one data event into c, and reports whether the event is
// a JSON object (false makes it a malformed event).
//
// Its meaning is defined by parseChunkStd: encoding/json decoding into a
// minimal struct, with type mismatches ignored. The hand-written scanner
// below validates the whole event as json.Valid does, and only looks at the
// members listed in chunk, without allocating. When it cannot be sure to
// agree with encoding/json (a key in an object it reads is escaped, differs
// only in case, or is repeated; a finish_reason needs unescaping) it hands
// the event to parseChunkStd. FuzzParseEvent checks that the two agree.
func parseChunk(data []byte, c *chunk) bool {
	*c = chunk{}
	p := parser{data: data, c: c}
	ok := p.document()
	if p.unsure {
		return parseChunkStd(data, c)
	}
	c.normalizeUsage()
	return ok
}

// normalizeUsage drops negative counts (a broken server's) and a usage
// whose counts are all zero (see the package doc).
func (c *chunk) normalizeUsage() {
	u := &c.usage
	u.prompt, u.completion, u.reasoning = max(u.prompt, 0), max(u.completion, 0), max(u.reasoning, 0)
	if !c.hasUsage || u.zero() {
		c.hasUsage, c.usage = false, usage{}
	}
}

// kind says which object the parser is in, and so which keys it reads.
type kind uint8

const (
	objOther   kind = iota // keys irrelevant: validate only
	objTop                 // the event
	objChoice              // an element of choices
	objDelta               // choices[].delta
	objUsage               // usage
	objDetails             // usage.completion_tokens_details
)

// field is a member the parser reads. Each is a bit in a duplicate mask.
type field uint8

const (
	fNone field = iota
	fChoices
	fUsage
	fError
	fSent
	fDelta
	fText
	fFinish
	fContent
	fReasoningContent
	fReasoning
	fPrompt
	fCompletion
	fDetails
	fReasoningTokens
)

// names lists, per object kind, the keys the parser reads.
var names = [...][]string{
	objTop:     {"choices", "usage", "error", "x_sent_unix_ns"},
	objChoice:  {"delta", "text", "finish_reason"},
	objDelta:   {"content", "reasoning_content", "reasoning"},
	objUsage:   {"prompt_tokens", "completion_tokens", "completion_tokens_details"},
	objDetails: {"reasoning_tokens"},
}

// lookup maps a key to the field it names in an object of kind k.
// The switch on string(key) does not allocate.
func lookup(k kind, key []byte) field {
	switch k {
	case objTop:
		switch string(key) {
		case "choices":
			return fChoices
		case "usage":
			return fUsage
		case "error":
			return fError
		case "x_sent_unix_ns":
			return fSent
		}
	case objChoice:
		switch string(key) {
		case "delta":
			return fDelta
		case "text":
			return fText
		case "finish_reason":
			return fFinish
		}
	case objDelta:
		switch string(key) {
		case "content":
			return fContent
		case "reasoning_content":
			return fReasoningContent
		case "reasoning":
			return fReasoning
		}
	case objUsage:
		switch string(key) {
		case "prompt_tokens":
			return fPrompt
		case "completion_tokens":
			return fCompletion
		case "completion_tokens_details":
			return fDetails
		}
	case objDetails:
		if string(key) == "reasoning_tokens" {
			return fReasoningTokens
		}
	}
	return fNone
}

// parser is a validating recursive-descent JSON scanner over one event.
type parser struct {
	data   []byte
	i      int
	c      *chunk
	unsure bool // stop: parseChunkStd must decide
}

func (p *parser) document() bool {
	p.ws()
	if p.i >= len(p.data) || p.data[p.i] != '{' {
		return false // valid JSON or not, an event that is not an object is malformed
	}
	if !p.object(objTop, 0) {
		return false
	}
	p.ws()
	return p.i == len(p.data)
}

// object scans the object at p.i, enclosed in depth containers.
func (p *parser) object(k kind, depth int) bool {
	if depth++; depth > maxDepth {
		return false
	}
	p.i++ // '{'
	if p.next() == '}' {
		p.i++
		return true
	}
	var seen uint16
	for {
		if p.next() != '"' {
			return false
		}
		key, esc, ok := p.str()
		if !ok || p.next() != ':' {
			return false
		}
		p.i++
		p.ws()
		f := fNone
		if k != objOther {
			if f = p.key(k, key, esc); p.unsure {
				return false
			}
			if seen&(1<<f) != 0 && f != fNone {
				p.unsure = true // encoding/json merges repeated members; let it
				return false
			}
			seen |= 1 << f
		}
		if !p.member(f, depth) {
			return false
		}
		switch p.next() {
		case ',':
			p.i++
		case '}':
			p.i++
			return true
		default:
			return false
		}
	}
}

// key returns the field a key names. encoding/json matches keys after
// unescaping and case-insensitively; any key that might match that way
// without matching exactly makes the parser unsure.
func (p *parser) key(k kind, key []byte, esc bool) field {
	if f := lookup(k, key); f != fNone {
		return f
	}
	if esc {
		p.unsure = true
		return fNone
	}
	for _, b := range key {
		if b >= utf8.RuneSelf || 'A' <= b && b <= 'Z' {
			for _, name := range names[k] {
				if foldEqual(key, name) {
					p.unsure = true
				}
			}
			break
		}
	}
	return fNone
}

// member scans one member value and records it when f is a field to read.
// A value of an unexpected type is validated and ignored.
func (p *parser) member(f field, depth int) bool {
	if f == fNone || p.i >= len(p.data) {
		return p.skip(depth)
	}
	c, b := p.c, p.data[p.i]
	switch {
	case f == fChoices && b == '[':
		return p.array(depth, objChoice)
	case f == fUsage && b == '{':
		c.hasUsage = true
		return p.object(objUsage, depth)
	case f == fDetails && b == '{':
		return p.object(objDetails, depth)
	case f == fDelta && b == '{':
		return p.object(objDelta, depth)
	case f == fError && b != 'n':
		start := p.i
		if !p.skip(depth) {
			return false
		}
		c.errVal = p.data[start:p.i]
		return true
	case (f == fText || f == fContent) && b == '"':
		return p.flag(&c.content)
	case (f == fReasoningContent || f == fReasoning) && b == '"':
		return p.flag(&c.reasoning)
	case f == fFinish && b == '"':
		return p.finish()
	case f == fSent || f == fPrompt || f == fCompletion || f == fReasoningTokens:
		return p.integer(f, depth)
	}
	return p.skip(depth)
}

// array scans an array; when elem is not objOther, its object elements are
// read as that kind.
func (p *parser) array(depth int, elem kind) bool {
	if depth++; depth > maxDepth {
		return false
	}
	p.i++ // '['
	if p.next() == ']' {
		p.i++
		return true
	}
	for {
		var ok bool
		if p.next() == '{' && elem != objOther {
			ok = p.object(elem, depth)
		} else {
			ok = p.skip(depth)
		}
		if !ok {
			return false
		}
		switch p.next() {
		case ',':
			p.i++
		case ']':
			p.i++
			return true
		default:
			return false
		}
	}
}

// flag scans a string and sets *nonEmpty when it is not "". Escapes never
// decode to nothing, so the raw length is enough.
func (p *parser) flag(nonEmpty *bool) bool {
	s, _, ok := p.str()
	if len(s) > 0 {
		*nonEmpty = true
	}
	return ok
}

func (p *parser) finish() bool {
	s, esc, ok := p.str()
	if !ok || len(s) == 0 {
		return ok
	}
	if esc || !utf8.Valid(s) {
		p.unsure = true // encoding/json would unescape or replace bytes
		return false
	}
	p.c.finish = s
	return true
}

// integer scans a number and stores it in field f when it is an integer
// that fits, as encoding/json does for an int; other values are ignored.
func (p *parser) integer(f field, depth int) bool {
	start := p.i
	if !p.skip(depth) {
		return false
	}
	v, ok := parseInt(p.data[start:p.i])
	if !ok || int64(int(v)) != v {
		return true
	}
	c := p.c
	switch f {
	case fSent:
		c.hasSent, c.sent = true, v
	case fPrompt:
		c.usage.prompt = int(v)
	case fCompletion:
		c.usage.completion = int(v)
	case fReasoningTokens:
		c.usage.reasoning = int(v)
	}
	return true
}
