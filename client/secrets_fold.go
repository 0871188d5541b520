package client

import (
	"bytes"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// foldPasses bounds how many layers of escaping fold undoes (a JSON string
// of a Go-quoted string is two).
const foldPasses = 3

// folded is text with its escapes decoded and its blanks dropped. For each
// byte of b, the original text's bytes [from[i], to[i]) are what spelled it.
type folded struct {
	b        []byte
	from, to []int
}

// fold decodes s for matching: escapes, percent-encoding and character
// references are undone, up to foldPasses times, and whitespace and
// control characters dropped, keeping where each byte came from.
func fold(s string) folded {
	f := folded{b: []byte(s)}
	f.from, f.to = make([]int, len(s)), make([]int, len(s))
	for i := range s {
		f.from[i], f.to[i] = i, i+1
	}
	for range foldPasses {
		next, changed := foldPass(f.b, func(a, b int) (int, int) { return f.from[a], f.to[b-1] })
		if !changed {
			break
		}
		f = next
	}
	return f
}

// foldBytes is fold's text alone, for the cheap check that finds nothing.
func foldBytes(s string) []byte {
	b := []byte(s)
	for range foldPasses {
		next, changed := foldPass(b, nil)
		if !changed {
			break
		}
		b = next.b
	}
	return b
}

// foldPass undoes one layer. span maps an input range to the original
// text's range; nil skips the bookkeeping.
func foldPass(p []byte, span func(a, b int) (int, int)) (out folded, changed bool) {
	out.b = make([]byte, 0, len(p))
	emit := func(c byte, a, b int) {
		out.b = append(out.b, c)
		if span != nil {
			x, y := span(a, b)
			out.from, out.to = append(out.from, x), append(out.to, y)
		}
	}
	emitRune := func(r rune, a, b int) {
		if r <= ' ' || r == 0x7f || unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return
		}
		var buf [utf8.UTFMax]byte
		for _, c := range buf[:utf8.EncodeRune(buf[:], r)] {
			emit(c, a, b)
		}
	}
	for i := 0; i < len(p); {
		r, n := decodeEscape(p[i:])
		switch {
		case n > 0:
			emitRune(r, i, i+n)
			i += n
			changed = true
		case p[i] <= ' ' || p[i] == 0x7f:
			i++
			changed = true
		case p[i] == '<' && htmlTag(p[i:]) > 0: // sk-PLA<b></b>NTED
			i += htmlTag(p[i:])
			changed = true
		case p[i] >= utf8.RuneSelf && invisible(p[i:]) > 0: // a zero-width space inside the key
			i += invisible(p[i:])
			changed = true
		case 'A' <= p[i] && p[i] <= 'Z': // an echo in upper case
			emit(p[i]+'a'-'A', i, i+1)
			i++
			changed = true
		default:
			emit(p[i], i, i+1)
			i++
		}
	}
	return out, changed
}

// htmlTag is the length of the HTML tag p starts with (<b>, </b>,
// <span class="x">: a letter after "<" or "</", at most 64 bytes without
// another "<"), 0 when it starts with none.
func htmlTag(p []byte) int {
	i := 1
	if i < len(p) && p[i] == '/' {
		i++
	}
	if i >= len(p) || !('a' <= p[i]|0x20 && p[i]|0x20 <= 'z') {
		return 0
	}
	for ; i < len(p) && i <= 64; i++ {
		switch p[i] {
		case '>':
			return i + 1
		case '<':
			return 0
		}
	}
	return 0
}

// invisible is the length of the invisible character p starts with (a
// format character such as U+200B ZERO WIDTH SPACE, U+2060 or a BOM), 0
// when it starts with another.
func invisible(p []byte) int {
	r, n := utf8.DecodeRune(p)
	if r != utf8.RuneError && unicode.Is(unicode.Cf, r) {
		return n
	}
	return 0
}

// decodeEscape reads an escape at the start of p: \uXXXX, \xXX, \n and
// the other C escapes (as a blank, -1), \c for any other c, %XX, &#N; or
// &#xN;. n is 0 when p does not start with one.
func decodeEscape(p []byte) (r rune, n int) {
	if len(p) < 2 {
		return 0, 0
	}
	switch p[0] {
	case '\\':
		switch p[1] {
		case 'u':
			if v, ok := hexValue(p[2:], 4); ok {
				return v, 6
			}
		case 'x':
			if v, ok := hexValue(p[2:], 2); ok {
				return v, 4
			}
		case 'n', 'r', 't', 'b', 'f', 'v', 'a', '0':
			return -1, 2
		}
		if p[1] < utf8.RuneSelf {
			return rune(p[1]), 2
		}
	case '%':
		if v, ok := hexValue(p[1:], 2); ok {
			return v, 3
		}
	case '&':
		if p[1] != '#' {
			return 0, 0
		}
		end := bytes.IndexByte(p[:min(len(p), 12)], ';')
		if end < 3 {
			return 0, 0
		}
		digits, base := string(p[2:end]), 10
		if digits[0] == 'x' || digits[0] == 'X' {
			digits, base = digits[1:], 16
		}
		var v rune
		for _, d := range digits {
			k := strings.IndexRune("0123456789abcdef"[:base], unicode.ToLower(d))
			if k < 0 {
				return 0, 0
			}
			v = v*rune(base) + rune(k)
		}
		if digits == "" {
			return 0, 0
		}
		return v, end + 1
	}
	return 0, 0
}

func hexValue(p []byte, n int) (rune, bool) {
	if len(p) < n {
		return 0, false
	}
	var v rune
	for _, c := range p[:n] {
		k := strings.IndexByte("0123456789abcdef", byte(unicode.ToLower(rune(c))))
		if k < 0 {
			return 0, false
		}
		v = v<<4 | rune(k)
	}
	return v, true
}

func containsAny(text []byte, subs [][]byte) bool {
	return slices.ContainsFunc(subs, func(s []byte) bool { return bytes.Contains(text, s) })
}

func indexFrom(b, sub []byte, at int) int {
	i := bytes.Index(b[at:], sub)
	if i < 0 {
		return -1
	}
	return at + i
}

// replaceSpans replaces each span of s (merged where they overlap) with
// the redaction mark.
func replaceSpans(s string, spans [][2]int) string {
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	var b strings.Builder
	last := 0
	for i := 0; i < len(spans); {
		start, end := spans[i][0], spans[i][1]
		for i++; i < len(spans) && spans[i][0] <= end; i++ {
			end = max(end, spans[i][1])
		}
		b.WriteString(s[last:start])
		b.WriteString(redactedMark)
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

// minCutSecret is the shortest start of a secret that cutSecret redacts
// at the end of a text: shorter ones are too likely to be ordinary words
// ("Bearer", say).
const minCutSecret = 8

// cutSecret returns the length of the longest end of b, before any cut
// mark ("..." or "…"), that is the start of a secret and at least
// minCutSecret bytes long: a secret cut by a bound applied before the
// scrub. 0 when there is none.
func cutSecret(b []byte, secrets [][]byte) int {
	b = b[:len(b)-len(cutMarks(b))]
	best := 0
	for _, sec := range secrets {
		for k := min(len(sec)-1, len(b)); k >= minCutSecret && k > best; k-- {
			if sec[k-1] == b[len(b)-1] && bytes.HasSuffix(b, sec[:k]) {
				best = k
				break
			}
		}
	}
	return best
}

// cutMarks is the run of "." and "…" that ends b.
func cutMarks(b []byte) []byte {
	t := bytes.TrimRight(b, ".")
	for bytes.HasSuffix(t, []byte("…")) {
		t = bytes.TrimRight(t[:len(t)-len("…")], ".")
	}
	return b[len(t):]
}
