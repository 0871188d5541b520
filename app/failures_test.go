package app

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// TestFailuresAreClassified runs a sweep against servers that fail every
// third request in one way each, and checks that the failures are counted
// in the right class (levels.csv, summary.json, console), that the sweep
// carries on, and that the success-based figures are those of the healthy
// requests alone: levels.csv's must equal, cell for cell, report's own
// summary of requests.jsonl's successful records, and (unless the failed
// requests ran at a healthy one's pace) differ from its summary with the
// failed records counted as successes. Every check is exact and none is
// on the wall clock, so a busy machine cannot skip one. A healthy request
// takes about 80 ms; the stall case waits on a 1 s request timeout and the
// others on 10 s. A run that misses is run again on a new server (up to
// timingAttempts) only when the server itself ran late: a starved machine
// can make a healthy request outlast the stall's timeout.
func TestFailuresAreClassified(t *testing.T) {
	t.Parallel()
	for _, tc := range failureCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for attempt := 1; ; attempt++ {
				wrong, starved := failureRun(t, tc)
				switch {
				case len(wrong) == 0:
					return
				case attempt >= timingAttempts || !starved:
					t.Error(strings.Join(wrong, "\n"))
					return
				}
				t.Logf("attempt %d (machine starved): %s", attempt, strings.Join(wrong, "; "))
			}
		})
	}
}

// failureTokens and the paced schedule of TestFailuresAreClassified.
const (
	failureTokens = 6
	failureTTFT   = 30 * time.Millisecond
	failureITL    = 10 * time.Millisecond
)

// failureCase is one way of failing every third request.
type failureCase struct {
	name    string
	fail    func(int64) int
	fault   func(int64) streamFault
	class   client.ErrorClass
	timeout time.Duration                // --request-timeout; 0 means 10s
	check   func(r client.Record) string // what is wrong with a failed record, from requests.jsonl
	// healthyPace: the failed requests stream like healthy ones, so
	// counting them as successes need not change a figure.
	healthyPace bool
}

// stallTimeout is the stall case's --request-timeout.
const stallTimeout = time.Second

var failureCases = []failureCase{
	{name: "500 every third request", class: client.HTTP5xx,
		fail: statusWhen(500, func(n int64) bool { return n%3 == 0 })},
	{name: "429 every third request", class: client.HTTP429,
		fail: statusWhen(429, func(n int64) bool { return n%3 == 0 })},
	{name: "stream cut mid-way", class: client.Truncated,
		fault: everyThird(streamFault{kind: faultCut, after: 3})},
	{name: "malformed chunk mid-stream", class: client.Malformed,
		fault:       everyThird(streamFault{kind: faultMalformed, after: 2}),
		healthyPace: true,
		check: func(r client.Record) string {
			// The rest of the stream was read: every token and the usage.
			if r.MalformedChunks != 1 || len(r.ChunkAt) != failureTokens || r.CompletionTokens != failureTokens || r.FinishReason != "length" {
				return fmt.Sprintf("malformed record: %d malformed, %d chunks, usage %d, finish %q; want 1, %d, %d, length",
					r.MalformedChunks, len(r.ChunkAt), r.CompletionTokens, r.FinishReason, failureTokens, failureTokens)
			}
			return ""
		}},
	{name: "error event mid-stream", class: client.StreamError,
		fault: everyThird(streamFault{kind: faultErrorEvent, after: 2, event: `{"error":{"message":"engine died","type":"InternalServerError","code":500}}`}),
		check: func(r client.Record) string {
			if !strings.Contains(r.Error, "engine died") {
				return fmt.Sprintf("error = %q, want the event's message", r.Error)
			}
			return ""
		}},
	{name: "429 as an error event (llm-d)", class: client.HTTP429,
		fault: everyThird(streamFault{kind: faultErrorEvent, after: 0, event: `{"error":{"message":"queue full","code":429}}`})},
	{name: "stall mid-stream", class: client.Timeout, timeout: stallTimeout,
		fault: everyThird(streamFault{kind: faultStall, after: 2}),
		check: func(r client.Record) string {
			// The deadline is armed after Start is stamped
			// (client/do.go), so a timed-out record never ends under
			// the timeout, however busy the machine.
			if took := r.End - r.Start; took < stallTimeout || took > stallTimeout+1700*time.Millisecond {
				return fmt.Sprintf("stalled request took %v, want about the %v request timeout", took, stallTimeout)
			}
			return ""
		}},
}

// failureRun sweeps a new paced server failing as tc says and returns what
// is wrong in the counts, the classes and the success-based figures (all
// checked exactly), and whether the server itself ran late (a starved
// machine).
func failureRun(t *testing.T, tc failureCase) (wrong []string, starved bool) {
	t.Helper()
	wrongf := func(format string, args ...any) { wrong = append(wrong, fmt.Sprintf(format, args...)) }
	p := startPaced(t, failureTTFT, failureITL, failureTokens, func(p *pacedServer) { p.fail, p.fault = tc.fail, tc.fault })
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), "sweep", "--url", p.url(), "--levels", "1,2",
		"--requests", "6", "--max-tokens", fmt.Sprint(failureTokens), "--request-timeout", cmp.Or(tc.timeout, 10*time.Second).String(), "--out", out)
	if code != ExitOK {
		t.Fatalf("exit %d, want 0 (failures are data)\n%s", code, stderr)
	}
	rows := readLevels(t, out)
	if len(rows) != 2 {
		t.Fatalf("levels.csv has %d rows, want 2", len(rows))
	}
	recs := readRecords(t, out)
	for _, row := range rows {
		c := row["concurrency"]
		for _, cl := range client.ErrorClasses {
			want := 0.0
			if cl == tc.class {
				want = 2
			}
			if got := num(t, row, "err_"+string(cl)); got != want {
				wrongf("C=%s err_%s = %v, want %v", c, cl, got, want)
			}
		}
		if row["requests_ok"] != "4" || row["requests_failed"] != "2" || row["end_reason"] != "completed" {
			wrongf("C=%s ok=%s failed=%s end=%s, want 4, 2, completed", c, row["requests_ok"], row["requests_failed"], row["end_reason"])
		}
		// Success-based figures are those of the healthy requests only.
		if row["completion_tokens_min"] != fmt.Sprint(failureTokens) || row["finish_length"] != "4" {
			wrongf("C=%s completion_tokens_min=%s finish_length=%s: a failed request leaked into the successful ones",
				c, row["completion_tokens_min"], row["finish_length"])
		}
		healthy, polluted := healthyAndPolluted(t, recs, c)
		changed := false
		for _, col := range successColumns {
			got, want := row[col.Name], col.CSV(&healthy)
			if got != want {
				wrongf("C=%s %s = %q, want %q: polluted by failed requests?", c, col.Name, got, want)
			}
			changed = changed || col.CSV(&polluted) != want
		}
		if !changed && !tc.healthyPace {
			wrongf("C=%s: counting the failed records as successes changes no success-based figure, so this case cannot tell them apart", c)
		}
	}
	if !strings.Contains(stdout, string(tc.class)) {
		wrongf("the console does not show the %s failures:\n%s", tc.class, stdout)
	}
	var sum struct {
		Levels []struct {
			Errors map[string]int `json:"errors"`
		} `json:"levels"`
	}
	readJSON(t, filepath.Join(out, "summary.json"), &sum)
	for i, l := range sum.Levels {
		if l.Errors[string(tc.class)] != 2 {
			wrongf("summary.json level %d errors = %v, want %s: 2", i, l.Errors, tc.class)
		}
	}
	failed := 0
	for _, r := range recs {
		if r.OK() {
			continue
		}
		failed++
		if r.ErrorClass != tc.class || r.Error == "" {
			wrongf("record: class %q error %q, want %q with a message", r.ErrorClass, r.Error, tc.class)
		}
		if tc.check != nil {
			if w := tc.check(r); w != "" {
				wrong = append(wrong, w)
			}
		}
	}
	if failed != 4 {
		wrongf("requests.jsonl has %d failed records, want 4", failed)
	}
	return wrong, p.starved(t)
}

// successColumns are the levels.csv columns taken over successful requests
// only (docs/metrics.md): per-request timing, rates and output lengths.
var successColumns = func() []report.Column {
	var cols []report.Column
	for _, c := range report.ColumnsIn(report.InCSV) {
		if strings.HasPrefix(c.Name, "ttft_") || strings.HasPrefix(c.Name, "decode_tps_") || strings.HasPrefix(c.Name, "e2e_") ||
			strings.HasPrefix(c.Name, "itl_") || strings.HasPrefix(c.Name, "tpot_") || strings.HasPrefix(c.Name, "completion_tokens_") ||
			strings.HasPrefix(c.Name, "finish_") {
			cols = append(cols, c)
		}
	}
	return cols
}()

// healthyAndPolluted summarises, with report.Summarize, the records of the
// level at concurrency c: healthy over its successful records alone, and
// polluted over all of them with the failed ones counted as successes
// (what a leak of failures into the success-based figures would give).
func healthyAndPolluted(t *testing.T, recs []client.Record, c string) (healthy, polluted report.LevelStats) {
	t.Helper()
	n, err := strconv.Atoi(c)
	if err != nil {
		t.Fatalf("levels.csv concurrency %q: %v", c, err)
	}
	var ok, all []client.Record
	for _, r := range recs {
		if r.Concurrency != n {
			continue
		}
		if r.OK() {
			ok = append(ok, r)
		}
		r.ErrorClass, r.Error = client.OK, ""
		all = append(all, r)
	}
	byStart := func(a, b client.Record) int { return cmp.Compare(a.Start, b.Start) }
	slices.SortFunc(ok, byStart) // a Level's records are in Start order
	slices.SortFunc(all, byStart)
	if len(ok) == 0 || len(all) == len(ok) {
		t.Fatalf("requests.jsonl has %d records at C=%d, %d of them successful: want both kinds", len(all), n, len(ok))
	}
	return report.Summarize(sweep.Level{Concurrency: n, Records: ok}, report.Settings{}), report.Summarize(sweep.Level{Concurrency: n, Records: all}, report.Settings{})
}
