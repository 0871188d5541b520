package client

import (
	"encoding/binary"
	"math/bits"
)

// The lexical half of parser: white space, strings, numbers and literals,
// validated as strictly as json.Valid does (encoding/json's scanner), so
// that a malformed event is never taken for a chunk.

func (p *parser) ws() {
	i, d := p.i, p.data
	for i < len(d) && d[i] <= ' ' && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r') {
		i++
	}
	p.i = i
}

// next skips white space and returns the next byte, 0 at the end. Servers
// send compact JSON, so the first test almost always decides.
func (p *parser) next() byte {
	if p.i < len(p.data) && p.data[p.i] > ' ' {
		return p.data[p.i]
	}
	p.ws()
	if p.i < len(p.data) {
		return p.data[p.i]
	}
	return 0
}

// skip validates and skips any value.
func (p *parser) skip(depth int) bool {
	if p.i >= len(p.data) {
		return false
	}
	switch b := p.data[p.i]; b {
	case '"':
		_, _, ok := p.str()
		return ok
	case '{':
		return p.object(objOther, depth)
	case '[':
		return p.array(depth, objOther)
	case 't':
		return p.literal("true")
	case 'f':
		return p.literal("false")
	case 'n':
		return p.literal("null")
	default:
		return p.number()
	}
}

// str scans the string at p.i and returns its raw contents, escapes not
// decoded, and whether it had any.
func (p *parser) str() (s []byte, esc, ok bool) {
	d := p.data
	start := p.i + 1
	for i := start; i < len(d); {
		if i+8 <= len(d) { // skip plain bytes eight at a time
			m := specialMask(binary.LittleEndian.Uint64(d[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		}
		switch c := d[i]; {
		case c == '"':
			p.i = i + 1
			return d[start:i], esc, true
		case c == '\\':
			esc = true
			n := escapeLen(d[i:])
			if n == 0 {
				return nil, esc, false
			}
			i += n
		case c < 0x20:
			return nil, esc, false
		default:
			i++
		}
	}
	return nil, esc, false
}

// specialMask flags, in the high bit of each byte of x, the bytes that
// matter inside a string: '"', '\\' and control characters. Only the lowest
// flag is exact (a borrow may flag the byte above a match), which is the
// one str uses. This is the classic "has zero byte" trick, three times.
func specialMask(x uint64) uint64 {
	const lsb, msb = 0x0101010101010101, 0x8080808080808080
	q := x ^ (lsb * '"')
	b := x ^ (lsb * '\\')
	return ((q-lsb)&^q | (b-lsb)&^b | (x-lsb*0x20)&^x) & msb
}

// escapeLen returns the length of the valid escape sequence at the start of
// b (which starts with a backslash), or 0.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(b) < 6 {
			return 0
		}
		for _, h := range b[2:6] {
			if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
				return 0
			}
		}
		return 6
	}
	return 0
}

// number scans a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *parser) number() bool {
	d, i := p.data, p.i
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		i = digits(d, i)
	default:
		return false
	}
	if i < len(d) && d[i] == '.' {
		if j := digits(d, i+1); j > i+1 {
			i = j
		} else {
			return false
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := digits(d, i)
		if j == i {
			return false
		}
		i = j
	}
	p.i = i
	return true
}

func digits(d []byte, i int) int {
	for i < len(d) && '0' <= d[i] && d[i] <= '9' {
		i++
	}
	return i
}

func (p *parser) literal(lit string) bool {
	if len(p.data)-p.i < len(lit) || string(p.data[p.i:p.i+len(lit)]) != lit {
		return false
	}
	p.i += len(lit)
	return true
}

// parseInt parses b as strconv.ParseInt(b, 10, 64) would, without allocating.
// b is a valid JSON number, so it has no '+' sign and no leading zeros.
func parseInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false // 20 digits overflow int64; 19 fit in a uint64
	}
	var u uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	switch {
	case neg && u <= 1<<63:
		return int64(-u), true //nolint:gosec // -(1<<63) wraps to itself, as wanted
	case !neg && u < 1<<63:
		return int64(u), true
	}
	return 0, false
}
