package report

import (
	"math"
	"strconv"
	"time"
)

// The "no value" convention. A figure without a sample is NaN (a rate, a
// mean) or NoSample (a time figure) in LevelStats; it renders as NoValue on
// the console and in report.html, as an empty cell in levels.csv and as
// null in summary.json. These helpers are the only place that rule is
// written; every renderer (report, htmlreport, chart, compare) uses them.

// NoValue is how the console and report.html show a figure without a value.
const NoValue = "-"

// Decimals of the machine-readable outputs (levels.csv, summary.json).
const (
	msDecimals   = 3 // milliseconds: microsecond resolution
	tpsDecimals  = 3 // tokens per second, seconds, counts' means
	rpsDecimals  = 4 // requests per second
	fracDecimals = 4 // fractions (KV usage, hit rate)
)

// Ms converts a time figure to milliseconds, NoSample to NaN.
func Ms(d time.Duration) float64 {
	if d == NoSample {
		return math.NaN()
	}
	return float64(d) / float64(time.Millisecond)
}

// Num formats v with fixed decimals for people (console, report.html):
// NaN and ±Inf are NoValue.
func Num(v float64, decimals int) string {
	if !defined(v) {
		return NoValue
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// CSVNum formats v with fixed decimals for levels.csv: NaN and ±Inf are
// the empty cell.
func CSVNum(v float64, decimals int) string {
	if !defined(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// rounded rounds v to the given decimals (as levels.csv prints it), nil for
// NaN and ±Inf: encoding/json cannot represent them.
func rounded(v float64, decimals int) *float64 {
	if !defined(v) {
		return nil
	}
	scale := math.Pow10(decimals)
	r := math.Round(v*scale) / scale
	return &r
}

// defined reports whether v is a value: neither NaN nor ±Inf.
func defined(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// msJSON is a time figure in summary.json or requests.jsonl: milliseconds
// with msDecimals, nil (null) for NoSample.
func msJSON(d time.Duration) *float64 { return rounded(Ms(d), msDecimals) }
