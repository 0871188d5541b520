package app

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/internal/testkit/rawserver"
)

// closedURL is the base URL of a loopback port that refuses connections
// for the whole test (rawserver.Closed).
func closedURL(t *testing.T) string {
	t.Helper()
	return "http://" + rawserver.Closed(t) + "/v1"
}

// lines splits s into its non-empty lines.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// lastLine is the last non-empty line of s: the error line of a failed run.
func lastLine(s string) string {
	ls := lines(s)
	if len(ls) == 0 {
		return ""
	}
	return ls[len(ls)-1]
}

// noCrash fails the test if out shows a Go panic or stack trace.
func noCrash(t *testing.T, out string) {
	t.Helper()
	for _, bad := range []string{"panic:", "goroutine ", "runtime error", ".go:"} {
		if strings.Contains(out, bad) {
			t.Errorf("output shows a crash (%q):\n%s", bad, out)
		}
	}
}

// TestBadFlags: every mistake on the command line exits 2 with one line on
// stderr that names the flag and what it accepts, and no usage screen.
func TestBadFlags(t *testing.T) {
	t.Parallel()
	url := closedURL(t) // never reached: every case fails before any request
	base := []string{"sweep", "--url", url, "--connect-timeout", "1s"}
	cases := []struct {
		name string
		args []string // after base, unless they start with "!"
		want []string // substrings of the one line
	}{
		{"unknown flag", []string{"--bogus"}, []string{"unknown flag --bogus", "toksweep sweep --help"}},
		{"flag typo", []string{"--levl", "1,2"}, []string{"unknown flag --levl", "did you mean --levels?"}},
		{"flag before command", []string{"!", "--url", url, "sweep"}, []string{"unknown flag --url", "flags go after the command"}},
		{"unknown command", []string{"!", "xyz"}, []string{`unknown command "xyz"`, "sweep, serve-sim"}},
		{"command typo", []string{"!", "swep"}, []string{`unknown command "swep"`, "did you mean sweep?"}},
		{"command typo, other command", []string{"!", "compar", "a", "b"}, []string{`unknown command "compar"`, "did you mean compare?"}},
		{"unknown flag, no suggestion", []string{"--bogus"}, []string{"unknown flag --bogus (see"}},
		{"stray argument", []string{"4"}, []string{`unexpected argument "4"`, "sweep takes only flags"}},
		{"requests not a number", []string{"--requests", "abc"}, []string{`invalid --requests "abc": want an integer`}},
		{"requests huge", []string{"--requests", "99999999999999999999"}, []string{"invalid --requests", "out of range"}},
		{"requests zero", []string{"--requests", "0"}, []string{"invalid --requests 0", "≥ 1"}},
		{"requests negative", []string{"--requests", "-3"}, []string{"invalid --requests -3"}},
		{"levels empty entries", []string{"--levels", ",,"}, []string{`invalid --levels ",,"`, "an empty entry"}},
		{"levels empty", []string{"--levels", ""}, []string{`invalid --levels ""`, "an empty entry"}},
		{"levels zero", []string{"--levels", "0"}, []string{`invalid --levels "0"`, "not a positive integer"}},
		{"levels negative", []string{"--levels", "-1"}, []string{`invalid --levels "-1"`}},
		{"levels double comma", []string{"--levels", "1,,2"}, []string{`invalid --levels "1,,2"`, "an empty entry"}},
		{"levels typo", []string{"--levels", "1,2,4,8,l6"}, []string{`"l6" is not a positive integer`, "e.g. 1,2,4,8"}},
		{"levels huge", []string{"--levels", "99999999999999999999"}, []string{"invalid --levels", "is too high"}},
		{"levels too high", []string{"--levels", "1,10000000"}, []string{"10000000 is too high"}},
		{"levels no value", []string{"--levels"}, []string{"--levels needs a value"}},
		{"duration no unit", []string{"--duration", "5"}, []string{`invalid --duration "5": want a duration`}},
		{"duration negative", []string{"--duration", "-5s"}, []string{"invalid --duration -5s", "positive duration"}},
		{"request-timeout zero", []string{"--request-timeout", "0s"}, []string{"invalid --request-timeout 0s"}},
		{"request-timeout empty", []string{"--request-timeout="}, []string{`invalid --request-timeout ""`}},
		{"connect-timeout negative", []string{"--connect-timeout", "-1s"}, []string{"invalid --connect-timeout -1s"}},
		{"max-tokens zero", []string{"--max-tokens", "0"}, []string{"invalid --max-tokens 0"}},
		{"warmup negative", []string{"--warmup", "-1"}, []string{"invalid --warmup -1"}},
		{"repeat zero", []string{"--repeat", "0"}, []string{"invalid --repeat 0"}},
		{"temperature NaN", []string{"--temperature", "NaN"}, []string{"invalid --temperature NaN", "≥ 0"}},
		{"temperature negative", []string{"--temperature", "-1"}, []string{"invalid --temperature -1"}},
		{"temperature word", []string{"--temperature", "hot"}, []string{`invalid --temperature "hot": want a number`}},
		{"bool with value", []string{"--insecure=maybe"}, []string{`invalid --insecure "maybe": want true or false`}},
		{"url scheme", []string{"!", "sweep", "--url", "ftp://host/v1"}, []string{`invalid --url "ftp://host/v1"`, "http(s)://HOST:PORT/v1"}},
		{"url garbage", []string{"!", "sweep", "--url", "::::"}, []string{`invalid --url "::::"`}},
		{"url empty", []string{"!", "sweep", "--url="}, []string{"--url is required"}},
		{"url is the chat endpoint", []string{"!", "sweep", "--url", "http://h:8000/v1/chat/completions", "--model", "m"},
			[]string{"--url http://h:8000/v1/chat/completions names an endpoint: give the base URL, --url http://h:8000/v1 (toksweep adds /chat/completions itself)"}},
		{"url is the completions endpoint", []string{"!", "sweep", "--url", "http://h:8000/v1/completions/"},
			[]string{"give the base URL, --url http://h:8000/v1 (toksweep adds /completions itself)"}},
		{"url is the models endpoint", []string{"!", "sweep", "--url", "https://h/v1/models"},
			[]string{"give the base URL, --url https://h/v1 (toksweep adds /models itself)"}},
		{"url and sim", []string{"--sim"}, []string{"--sim and --url are exclusive"}},
		{"api", []string{"--api", "responses"}, []string{`invalid --api "responses": want chat or completions`}},
		{"header", []string{"--header", "NoColon"}, []string{"invalid --header", "want Name:Value"}},
		{"extra-body", []string{"--extra-body", "[1]"}, []string{"invalid --extra-body", "JSON object"}},
		{"prompt empty", []string{"--prompt", " "}, []string{"--prompt is empty"}},
		{"prompt-file missing", []string{"--prompt-file", "/nonexistent/prompt.txt"}, []string{"cannot read --prompt-file"}},
		{"auto-max huge", []string{"--auto-max", "10000000"}, []string{"invalid --auto-max 10000000"}},
		{"serve-sim unknown flag", []string{"!", "serve-sim", "--jiter", "0.1"}, []string{"unknown flag --jiter", "did you mean --jitter?"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{}, base...), tc.args...)
			if len(tc.args) > 0 && tc.args[0] == "!" {
				args = tc.args[1:]
			}
			code, stdout, stderr := runCLI(t, context.Background(), args...)
			if code != ExitUsage {
				t.Fatalf("exit %d, want %d\nstderr:\n%s", code, ExitUsage, stderr)
			}
			if ls := lines(stderr); len(ls) != 1 {
				t.Errorf("stderr has %d lines, want 1:\n%s", len(ls), stderr)
			}
			if stdout != "" {
				t.Errorf("stdout is not empty (usage screen?):\n%s", stdout)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			noCrash(t, stderr)
		})
	}
}

// TestHelpIsNotAnError: asking for help prints it on stdout and exits 0.
func TestHelpIsNotAnError(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--help"}, {"sweep", "--help"}, {"serve-sim", "-h"}} {
		code, stdout, stderr := runCLI(t, context.Background(), args...)
		if code != ExitOK || !strings.Contains(stdout, "USAGE") || stderr != "" {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr %q", args, code, len(stdout), stderr)
		}
	}
}

// TestUnreachablePortFailsFast: a port nothing listens on gives exit 1 in
// well under the connect timeout, with one line naming the URL, the cause
// and what to check, with or without --model.
func TestUnreachablePortFailsFast(t *testing.T) {
	t.Parallel()
	url := closedURL(t)
	for _, extra := range [][]string{nil, {"--model", "m"}} {
		start := time.Now()
		args := append([]string{"sweep", "--url", url, "--out", t.TempDir()}, extra...)
		code, _, stderr := runCLI(t, context.Background(), args...)
		if took := time.Since(start); took > 3*time.Second {
			t.Errorf("%v: took %v", extra, took)
		}
		if code != ExitFailure {
			t.Fatalf("%v: exit %d, want 1\n%s", extra, code, stderr)
		}
		line := lastLine(stderr)
		for _, w := range []string{url, "connection refused", "no load sent", "--url"} {
			if !strings.Contains(line, w) {
				t.Errorf("%v: error line lacks %q: %s", extra, w, line)
			}
		}
		if ls := lines(stderr); len(ls) != 1 {
			t.Errorf("%v: stderr has %d lines, want 1:\n%s", extra, len(ls), stderr)
		}
	}
}

// TestPreflightFailures: what is wrong with the target or the request is
// found by the checks before the sweep, in seconds, with one actionable
// line, and the server sees at most the one pre-flight request.
func TestPreflightFailures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		setup  func(p *pacedServer)
		tls    bool
		args   []string
		want   []string
		maxReq int64 // chat requests the server may see (the probe)
	}{
		{"wrong key while listing models", func(p *pacedServer) { p.apiKey = "right-key" },
			false, []string{"--api-key", "wrong-key"}, []string{"HTTP 401", "/v1/models", "check --api-key / OPENAI_API_KEY"}, 0},
		{"wrong key on the probe", func(p *pacedServer) { p.apiKey = "right-key" },
			false, []string{"--api-key", "wrong-key", "--model", "paced"}, []string{"HTTP 401", "/v1/chat/completions", "check --api-key"}, 1},
		{"no key", func(p *pacedServer) { p.apiKey = "right-key" },
			false, []string{"--model", "paced"}, []string{"HTTP 401", "check --api-key"}, 1},
		{"unknown model", nil,
			false, []string{"--model", "nope"}, []string{"HTTP 404", "does not exist", "check --model"}, 1},
		{"prompt over the context", func(p *pacedServer) { p.contextLen = 4096 },
			false, []string{"--max-tokens", "100000"}, []string{"prompt ~7 + max_tokens 100000 > context 4096: lower --max-tokens", "max_model_len 4096"}, 1},
		{"prompt over the context, refused in a 200 stream", func(p *pacedServer) { p.contextLen, p.inStream = 1024, true },
			false, []string{"--max-tokens", "2048"}, []string{"prompt ~7 + max_tokens 2048 > context 1024: lower --max-tokens"}, 1},
		{"prompt over an unlisted context, refused in a 200 stream", func(p *pacedServer) { p.contextLen, p.inStream, p.unlisted = 10, true, true },
			false, []string{"--model", "paced"}, []string{"error event in stream", "maximum context length is 10", "prompt ~7 + max_tokens 2048 > context 10: lower --max-tokens"}, 1},
		{"prompt over an unlisted context, refused with 400", func(p *pacedServer) { p.contextLen, p.unlisted = 5, true },
			false, nil, []string{"HTTP 400", "prompt ~7 > context 5: shorten the prompts"}, 1},
		{"unknown model, refused in a 200 stream", func(p *pacedServer) { p.inStream = true },
			false, []string{"--model", "nope"}, []string{"error event in stream", "does not exist", "(code 404)", "check --model"}, 1},
		{"server says nothing", func(p *pacedServer) { p.fault = func(int64) streamFault { return streamFault{kind: faultStallHead} } },
			false, []string{"--request-timeout", "300ms"}, []string{"timed out", "raise --request-timeout"}, 1},
		{"self-signed TLS", nil,
			true, nil, []string{"certificate", "--insecure"}, 0},
		{"URL without /v1", nil, // a usage error (exit 2): the server answers under /v1
			false, []string{"!nov1"}, []string{"did you mean --url ", "/v1?"}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			setup := func(*pacedServer) {}
			if tc.setup != nil {
				setup = tc.setup
			}
			p := newPaced(t, 10*time.Millisecond, 5*time.Millisecond, 4, tc.tls, setup)
			url, args := p.url(), tc.args
			if len(args) > 0 && args[0] == "!nov1" {
				url, args = p.srv.URL, args[1:]
			}
			out := t.TempDir()
			start := time.Now()
			// A TLS handshake under -race on a starved machine can take
			// seconds: the TLS case's connect timeout leaves it room, as no
			// case is about that timeout. Each case ends well before it.
			connect := 5 * time.Second
			if tc.tls {
				connect = 30 * time.Second
			}
			args = append([]string{"sweep", "--url", url, "--levels", "1,2", "--requests", "2", "--connect-timeout", connect.String(), "--out", out}, args...)
			code, _, stderr := runCLI(t, context.Background(), args...)
			if took := time.Since(start); took > connect+5*time.Second {
				t.Errorf("took %v", took)
			}
			want := ExitFailure
			if len(tc.args) > 0 && tc.args[0] == "!nov1" {
				want = ExitUsage // --url lacks the /v1 the server answers under
			}
			if code != want {
				t.Fatalf("exit %d, want %d\n%s", code, want, stderr)
			}
			line := lastLine(stderr)
			for _, w := range append([]string{"no load sent"}, tc.want...) {
				if !strings.Contains(line, w) && !(w == "no load sent" && strings.Contains(line, "give --model to skip it")) {
					t.Errorf("error line lacks %q: %s", w, line)
				}
			}
			if ls := lines(stderr); len(ls) != 1 {
				t.Errorf("stderr has %d lines, want 1:\n%s", len(ls), stderr)
			}
			if n := p.requests.Load(); n > tc.maxReq {
				t.Errorf("the server saw %d chat requests, want at most %d (load was sent)", n, tc.maxReq)
			}
			if entries, err := os.ReadDir(out); err != nil || len(entries) != 0 {
				t.Errorf("--out holds %d entries (%v), want it left empty", len(entries), err)
			}
			noCrash(t, stderr)
		})
	}
}

// TestOutNotWritable: an --out that cannot be a directory fails with exit 1
// before a single request reaches the server.
func TestOutNotWritable(t *testing.T) {
	t.Parallel()
	p := startPaced(t, 10*time.Millisecond, 5*time.Millisecond, 4)
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--url", p.url(), "--levels", "1", "--requests", "1",
		"--out", filepath.Join(file, "run"))
	if code != ExitFailure {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	if line := lastLine(stderr); !strings.Contains(line, "not writable") || !strings.Contains(line, file) {
		t.Errorf("error line should name the directory and say it is not writable: %s", line)
	}
	if n := p.seen(); n != 0 {
		t.Errorf("the server saw %d requests before the output was known to be writable", n)
	}
}

// everyThird injects a fault into every third request the server receives.
// Request 1 is the pre-flight probe, so with --levels 1,2 --requests 6 each
// level's six requests hold exactly two faults.
func everyThird(f streamFault) func(int64) streamFault {
	return func(n int64) streamFault {
		if n%3 == 0 {
			return f
		}
		return streamFault{}
	}
}

// statusWhen answers code to the requests (1-based) that match.
func statusWhen(code int, match func(n int64) bool) func(int64) int {
	return func(n int64) int {
		if match(n) {
			return code
		}
		return 0
	}
}

// TestUniformClientErrorAborts: a key revoked after the pre-flight makes
// every request fail with 401; the sweep stops at the first level instead
// of hammering the server, says why, and exits 1.
func TestUniformClientErrorAborts(t *testing.T) {
	t.Parallel()
	p := startPaced(t, 10*time.Millisecond, 5*time.Millisecond, 4, func(p *pacedServer) {
		p.fail = statusWhen(401, func(n int64) bool { return n > 1 }) // the probe passes
	})
	out := t.TempDir()
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--url", p.url(), "--levels", "2,4,8",
		"--requests", "8", "--out", out)
	if code != ExitFailure {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	line := lastLine(stderr)
	for _, w := range []string{"every request at concurrency 2 failed (http_4xx)", "HTTP 401", "check --api-key"} {
		if !strings.Contains(line, w) {
			t.Errorf("error line lacks %q: %s", w, line)
		}
	}
	rows := readLevels(t, out)
	if len(rows) != 1 || rows[0]["end_reason"] != "aborted" || rows[0]["requests_ok"] != "0" {
		t.Fatalf("levels.csv = %v, want one aborted level", rows)
	}
	if n := p.requests.Load(); n > 1+4 {
		t.Errorf("the server saw %d requests; the sweep should stop after about C=2 failures", n)
	}
	var sum struct {
		EndReason string `json:"end_reason"`
	}
	readJSON(t, filepath.Join(out, "summary.json"), &sum)
	if sum.EndReason != "aborted" {
		t.Errorf("summary.json end_reason = %q, want aborted", sum.EndReason)
	}
}

// TestServerErrorsDoNotAbort: a server that answers 500 to everything after
// the pre-flight is measured at every level (5xx is the server under load),
// and since nothing succeeded the run exits 1 saying so.
func TestServerErrorsDoNotAbort(t *testing.T) {
	t.Parallel()
	p := startPaced(t, 10*time.Millisecond, 5*time.Millisecond, 4, func(p *pacedServer) {
		p.fail = statusWhen(500, func(n int64) bool { return n > 1 }) // the probe passes
	})
	out := t.TempDir()
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--url", p.url(), "--levels", "1,2",
		"--requests", "3", "--out", out)
	if code != ExitFailure {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	if line := lastLine(stderr); !strings.Contains(line, "no request of the whole sweep succeeded") {
		t.Errorf("error line: %s", line)
	}
	rows := readLevels(t, out)
	if len(rows) != 2 {
		t.Fatalf("levels.csv has %d rows, want 2: 5xx must not stop the sweep", len(rows))
	}
	for _, row := range rows {
		if row["end_reason"] != "completed" || row["err_http_5xx"] != "3" || row["requests_ok"] != "0" {
			t.Errorf("C=%s end=%s err_http_5xx=%s ok=%s", row["concurrency"], row["end_reason"], row["err_http_5xx"], row["requests_ok"])
		}
		if row["decode_tps_p50"] != "" || row["aggregate_output_tps"] != "" && row["aggregate_output_tps"] != "0.000" {
			t.Errorf("C=%s has rates without a single success: decode %q aggregate %q", row["concurrency"], row["decode_tps_p50"], row["aggregate_output_tps"])
		}
	}
}

// readJSON decodes the JSON file at path into v, failing on invalid JSON.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s is not valid JSON: %v", path, err)
	}
}

// readRecords reads DIR/requests.jsonl, failing on any line that is not a
// whole JSON record.
func readRecords(t *testing.T, dir string) []client.Record {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []client.Record
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var r client.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("requests.jsonl line %d is not valid JSON: %v", len(recs)+1, err)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestTransientPreflightFailureIsCounted: a 500 on the pre-flight request
// is the server's momentary state, not a wrong flag: the sweep warns, runs,
// and counts what follows.
func TestTransientPreflightFailureIsCounted(t *testing.T) {
	t.Parallel()
	p := startPaced(t, 5*time.Millisecond, 2*time.Millisecond, 3, func(p *pacedServer) {
		p.fail = statusWhen(503, func(n int64) bool { return n == 1 }) // only the probe fails
	})
	out := t.TempDir()
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--url", p.url(), "--model", "paced",
		"--levels", "1", "--requests", "2", "--out", out)
	if code != ExitOK || !strings.Contains(stderr, "warning: the pre-flight request failed") {
		t.Fatalf("exit %d, want 0 with a warning\n%s", code, stderr)
	}
	if rows := readLevels(t, out); len(rows) != 1 || rows[0]["requests_ok"] != "2" {
		t.Errorf("levels.csv rows %v", rows)
	}
}

// TestFailedChecksLeaveNoRunDir: a mistyped URL fails the checks before any
// load; the run directory it created is removed again, while a directory
// that already existed is kept.
func TestFailedChecksLeaveNoRunDir(t *testing.T) {
	t.Parallel()
	url := closedURL(t)
	fresh := filepath.Join(t.TempDir(), "run")
	code, _, _ := runCLI(t, context.Background(), "sweep", "--url", url, "--out", fresh, "--connect-timeout", "1s")
	if code != ExitFailure {
		t.Fatalf("exit %d, want 1", code)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("the failed run left %s behind (%v)", fresh, err)
	}
	existing := t.TempDir()
	runCLI(t, context.Background(), "sweep", "--url", url, "--out", existing, "--connect-timeout", "1s")
	if _, err := os.Stat(existing); err != nil {
		t.Errorf("an existing --out directory was removed: %v", err)
	}
}
