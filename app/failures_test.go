package app

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
)

// TestFailuresAreClassified runs a sweep against servers that fail every
// third request in one way each, and checks that the failures are counted
// in the right class (levels.csv, summary.json, console), that the sweep
// carries on, and that the success-based figures are those of the healthy
// requests alone. A healthy request takes about 80 ms; the stall case
// waits on a 1 s request timeout and the others on 10 s. The counts and
// classes are exact; the success-based figures are held to the closed form
// within 15%. A run that misses either is run again on a new server (up to
// timingAttempts), a miss in the counts only when the server itself ran
// late (a starved machine can make a healthy request outlast the stall's
// timeout); timing is not compared when every attempt was starved.
func TestFailuresAreClassified(t *testing.T) {
	t.Parallel()
	for _, tc := range failureCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for attempt := 1; ; attempt++ {
				wrong, timing, starved := failureRun(t, tc)
				last := attempt >= timingAttempts
				switch {
				case len(wrong) == 0 && len(timing) == 0:
					return
				case len(wrong) > 0 && (last || !starved):
					t.Error(strings.Join(wrong, "\n"))
					return
				case len(wrong) == 0 && last && starved:
					t.Logf("timing not compared: the machine starved every attempt; last: %s", strings.Join(timing, "; "))
					return
				case len(wrong) == 0 && last:
					t.Error(strings.Join(timing, "\n"))
					return
				}
				t.Logf("attempt %d (machine starved: %v): %s", attempt, starved, strings.Join(append(wrong, timing...), "; "))
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
		fault: everyThird(streamFault{kind: faultMalformed, after: 2}),
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
			// The deadline starts as the request is built, a little
			// before Start (a busy machine made it 0.6 ms once).
			if took := r.End - r.Start; took < stallTimeout-50*time.Millisecond || took > stallTimeout+1700*time.Millisecond {
				return fmt.Sprintf("stalled request took %v, want about the %v request timeout", took, stallTimeout)
			}
			return ""
		}},
}

// failureRun sweeps a new paced server failing as tc says and returns what
// is wrong in the counts and classes (checked exactly), the success-based
// figures that miss the closed form, and whether the server itself ran late
// (a starved machine).
func failureRun(t *testing.T, tc failureCase) (wrong, timing []string, starved bool) {
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
		for _, ck := range []struct {
			col  string
			want float64
		}{{"decode_tps_p50", p.decodeTPS()}, {"e2e_tps_mean", p.e2eTPS()}, {"ttft_p50_ms", msOf(failureTTFT)}} {
			// A starved client can read a stream in one burst, which
			// leaves its decode rate undefined: that is timing too.
			if got, err := strconv.ParseFloat(row[ck.col], 64); err != nil || !within(got, ck.want, 0.15) {
				timing = append(timing, fmt.Sprintf("C=%s %s = %q, want %.2f: polluted by failed requests?", c, ck.col, row[ck.col], ck.want))
			}
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
	for _, r := range readRecords(t, out) {
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
	return wrong, timing, p.starved(t)
}
