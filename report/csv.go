package report

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/toksweep/toksweep/client"
)

// Decimals of the machine-readable outputs (levels.csv, summary.json).
const (
	msDecimals  = 3 // milliseconds: microsecond resolution
	tpsDecimals = 3 // tokens per second, seconds, counts' means
	rpsDecimals = 4 // requests per second
)

// LevelsCSVHeader is the header of levels.csv, in column order. The package
// doc and docs/metrics.md describe each column.
var LevelsCSVHeader = levelsCSVHeader()

func levelsCSVHeader() []string {
	h := []string{
		"concurrency", "requests_ok", "requests_failed",
		"ttft_p50_ms", "ttft_p95_ms", "ttft_p99_ms",
		"decode_tps_p50", "decode_tps_p10", "decode_tps_mean",
		"e2e_tps_p50", "e2e_tps_mean",
		"itl_p50_ms", "itl_p99_ms", "itl_max_ms",
		"aggregate_output_tps", "aggregate_total_tps", "requests_per_s",
		"token_source",
		"end_reason", "repeat", "window_s", "window_fallback", "inflight_mean",
		"ttfc_p50_ms",
		"completion_tokens_mean", "completion_tokens_min", "completion_tokens_max",
		"finish_stop", "finish_length", "token_count_mismatch",
	}
	for _, c := range client.ErrorClasses {
		h = append(h, "err_"+string(c))
	}
	h = append(h, "client_limited", "client_limited_reason", "e2e_tps_p10", "slo_pass", "slo_failed")
	return append(h, serverColumns...)
}

// LevelsCSV writes levels.csv one row at a time, so each level can be
// appended as it ends.
type LevelsCSV struct {
	w *csv.Writer
}

// NewLevelsCSV writes the header to w and returns a writer for the rows.
func NewLevelsCSV(w io.Writer) (*LevelsCSV, error) {
	c := &LevelsCSV{w: csv.NewWriter(w)}
	if err := c.write(LevelsCSVHeader); err != nil {
		return nil, err
	}
	return c, nil
}

// Write writes the row of one level and flushes it.
func (c *LevelsCSV) Write(s LevelStats) error {
	return c.write(levelRow(s))
}

func (c *LevelsCSV) write(row []string) error {
	if err := c.w.Write(row); err != nil {
		return err
	}
	c.w.Flush()
	return c.w.Error()
}

// levelRow formats s in LevelsCSVHeader order.
func levelRow(s LevelStats) []string {
	row := []string{
		strconv.Itoa(s.Concurrency), strconv.Itoa(s.RequestsOK), strconv.Itoa(s.RequestsFailed),
		msCell(s.TTFTP50), msCell(s.TTFTP95), msCell(s.TTFTP99),
		fixed(s.DecodeTPSP50, tpsDecimals), fixed(s.DecodeTPSP10, tpsDecimals), fixed(s.DecodeTPSMean, tpsDecimals),
		fixed(s.E2ETPSP50, tpsDecimals), fixed(s.E2ETPSMean, tpsDecimals),
		msCell(s.ITLP50), msCell(s.ITLP99), msCell(s.ITLMax),
		fixed(s.AggregateOutputTPS, tpsDecimals), fixed(s.AggregateTotalTPS, tpsDecimals),
		fixed(s.RequestsPerS, rpsDecimals),
		string(s.TokenSource),
		string(s.EndReason), strconv.Itoa(s.Repeat),
		fixed(s.windowSeconds(), tpsDecimals), strconv.FormatBool(s.WindowFallback),
		fixed(s.InflightMean, tpsDecimals),
		msCell(s.TTFCP50),
		fixed(s.CompletionTokensMean, tpsDecimals),
		s.okInt(s.CompletionTokensMin), s.okInt(s.CompletionTokensMax),
		strconv.Itoa(s.FinishStop), strconv.Itoa(s.FinishLength), strconv.Itoa(s.TokenCountMismatch),
	}
	for _, c := range client.ErrorClasses {
		row = append(row, strconv.Itoa(s.Errors.Count(c)))
	}
	row = append(row, strconv.FormatBool(s.ClientLimited), s.ClientLimitedReason, fixed(s.E2ETPSP10, tpsDecimals))
	row = append(row, sloCells(s.SLO)...)
	return append(row, s.Server.cells()...)
}

// windowSeconds is the window length in seconds, NaN for a level without
// measured requests (no window at all).
func (s *LevelStats) windowSeconds() float64 {
	if s.RequestsOK+s.RequestsFailed == 0 || s.Window() <= 0 {
		return math.NaN() // no window: no request finished
	}
	return s.Window().Seconds()
}

// okInt formats a figure over successful requests; empty when there are none.
func (s *LevelStats) okInt(n int) string {
	if s.RequestsOK == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// fixed formats v with a fixed number of decimals, NaN as "".
func fixed(v float64, decimals int) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// msCell formats a time figure in milliseconds, NoSample as "".
func msCell(d time.Duration) string { return fixed(ms(d), msDecimals) }

// sloCells formats a level's SLO verdict: empty cells without an SLO.
func sloCells(r *SLOResult) []string {
	if r == nil {
		return []string{"", ""}
	}
	return []string{strconv.FormatBool(r.Pass), strings.Join(r.Failed, "; ")}
}
