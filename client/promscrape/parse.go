package promscrape

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode"
)

// Series is the aggregate of every sample of one metric name.
type Series struct {
	Sum float64 // sum of the finite values
	N   int     // number of finite values (label sets)
}

// Exposition is one parsed scrape: each sample name with the sum of its
// values over label sets. A histogram appears as NAME_bucket, NAME_sum and
// NAME_count, a counter under the name the server writes (vLLM's
// prometheus_client appends _total; Go's client_golang writes the name as
// declared).
type Exposition struct {
	Series    map[string]Series
	Malformed int    // lines that could not be parsed and were skipped
	FirstBad  string // the first of them, for messages
}

// maxLine bounds one exposition line; longer lines are malformed.
const maxLine = 1 << 20

// Parse reads one text exposition. It allocates per metric name, not per
// line: a line is parsed in the scanner's buffer, and its value converted
// without a copy.
func Parse(r io.Reader) (*Exposition, error) {
	e := &Exposition{}
	index := map[string]int{} // into sums; looked up by a []byte name without a copy
	var sums []Series
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 8<<10), maxLine)
	samples, lineNo := 0, 0
	for sc.Scan() {
		lineNo++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		name, v, err := parseSample(line)
		if err != nil {
			if e.Malformed == 0 {
				// The line itself is not quoted: a page that is not an
				// exposition may echo request headers, credentials included.
				e.FirstBad = fmt.Sprintf("line %d: %v", lineNo, err)
			}
			e.Malformed++
			continue
		}
		samples++
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		i, ok := index[string(name)]
		if !ok {
			i = len(sums)
			index[string(name)] = i
			sums = append(sums, Series{})
		}
		sums[i].Sum += v
		sums[i].N++
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the exposition: %w", err)
	}
	if samples == 0 && e.Malformed > 0 {
		return nil, fmt.Errorf("not a Prometheus text exposition (%s)", e.FirstBad)
	}
	e.Series = make(map[string]Series, len(index))
	for name, i := range index {
		e.Series[name] = sums[i]
	}
	return e, nil
}

// parseSample parses `name{labels} value [timestamp] [# exemplar]`.
func parseSample(line []byte) (name []byte, v float64, err error) {
	i := 0
	for i < len(line) && isNameChar(line[i], i == 0) {
		i++
	}
	if i == 0 {
		return nil, 0, errors.New("no metric name")
	}
	name, rest := line[:i], line[i:]
	if t := bytes.TrimLeft(rest, " \t"); len(t) > 0 && t[0] == '{' {
		rest = t
		n, err := skipLabels(rest)
		if err != nil {
			return nil, 0, err
		}
		rest = rest[n:]
	}
	if len(rest) == 0 || (rest[0] != ' ' && rest[0] != '\t') {
		return nil, 0, errors.New("no value")
	}
	rest = bytes.TrimLeftFunc(rest, unicode.IsSpace) // as strings.Fields splits
	end := bytes.IndexFunc(rest, unicode.IsSpace)
	if end < 0 {
		end = len(rest)
	}
	if end == 0 {
		return nil, 0, errors.New("no value")
	}
	// The conversion does not escape, so a short value is not copied to the heap.
	v, err = strconv.ParseFloat(string(rest[:end]), 64)
	if err != nil {
		return nil, 0, errors.New("the value is not a number")
	}
	return name, v, nil
}

// isNameChar reports whether c may appear in a metric name ([a-zA-Z_:]
// first, then digits too).
func isNameChar(c byte, first bool) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c == ':':
		return true
	case c >= '0' && c <= '9':
		return !first
	}
	return false
}

// skipLabels returns the length of the `{...}` label set at the start of s:
// name="value" pairs separated by commas, values with \\, \" and \n escapes.
func skipLabels(s []byte) (int, error) {
	i := 1
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == ',') {
			i++
		}
		if i < len(s) && s[i] == '}' {
			return i + 1, nil
		}
		start := i
		for i < len(s) && isNameChar(s[i], i == start) {
			i++
		}
		if i == start {
			return 0, errors.New("bad label name")
		}
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i+1 >= len(s) || s[i] != '=' || s[i+1] != '"' {
			return 0, errors.New(`want label="value"`)
		}
		i += 2
		for i < len(s) && s[i] != '"' {
			if s[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(s) {
			return 0, errors.New("unterminated label value")
		}
		i++ // the closing quote
	}
}
