// Package promscrape reads a server's own account of itself from its
// Prometheus endpoint: it parses the text exposition format (stdlib only),
// picks out the vLLM metrics that explain client-side figures, and samples
// them while a sweep level runs. It knows HTTP and the exposition format;
// it knows nothing about the sweep's scheduling or the report's figures
// beyond the plain data it hands over (LevelMetrics).
//
// # Parsing
//
// Parse reads the Prometheus text format (and the OpenMetrics text that
// servers send when asked): "# HELP", "# TYPE" and other comments are
// skipped, label values may hold escaped quotes, commas and braces, values
// may be NaN, +Inf or -Inf, and a timestamp or an OpenMetrics exemplar after
// the value is ignored. Unknown metrics are kept but never looked at. A
// malformed line is skipped and counted, so one bad line cannot hide the
// rest; a body with no sample at all and at least one malformed line is an
// error (it is not an exposition: an HTML page, say). Samples of one name
// are summed over their label sets (engines, models), counting how many
// there were; NaN and infinite values are left out of the sum.
//
// # Metrics
//
// The names are vLLM's (see Names); llm-d-inference-sim and toksweep's own
// simulator use the same ones. SGLang's sglang:* names are not read.
package promscrape

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
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

// Parse reads one text exposition.
func Parse(r io.Reader) (*Exposition, error) {
	e := &Exposition{Series: map[string]Series{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	samples, lineNo := 0, 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
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
		s := e.Series[name]
		s.Sum += v
		s.N++
		e.Series[name] = s
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the exposition: %w", err)
	}
	if samples == 0 && e.Malformed > 0 {
		return nil, fmt.Errorf("not a Prometheus text exposition (%s)", e.FirstBad)
	}
	return e, nil
}

// parseSample parses `name{labels} value [timestamp] [# exemplar]`.
func parseSample(line string) (name string, v float64, err error) {
	i := 0
	for i < len(line) && isNameChar(line[i], i == 0) {
		i++
	}
	if i == 0 {
		return "", 0, errors.New("no metric name")
	}
	name, rest := line[:i], line[i:]
	if t := strings.TrimLeft(rest, " \t"); strings.HasPrefix(t, "{") {
		rest = t
		n, err := skipLabels(rest)
		if err != nil {
			return "", 0, err
		}
		rest = rest[n:]
	}
	if rest == "" || (rest[0] != ' ' && rest[0] != '\t') {
		return "", 0, errors.New("no value")
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return "", 0, errors.New("no value")
	}
	v, err = strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return "", 0, errors.New("the value is not a number")
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
func skipLabels(s string) (int, error) {
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
