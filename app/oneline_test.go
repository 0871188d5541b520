package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestEveryErrorIsOneLine runs bad command lines through the real CLI,
// several of them with line breaks in the values, and wants exactly one
// line on stderr, the value quoted (no raw line break in the line) and the
// right exit status.
func TestEveryErrorIsOneLine(t *testing.T) {
	t.Chdir(t.TempDir())
	url := closedURL(t)
	sw := func(args ...string) []string {
		return append([]string{"sweep", "--url", url, "--connect-timeout", "1s", "--levels", "1", "--requests", "1"}, args...)
	}
	cases := []struct {
		name string
		args []string
		code int
		want []string // substrings of the line
	}{
		{"stream string with a line break", sw("--extra-body", `{"stream":"x\ny"}`), ExitUsage, []string{`"stream": "x\ny"`}},
		{"stream false", sw("--extra-body", `{"stream":false}`), ExitUsage, []string{`"stream": false`}},
		{"extra-body stray brace", sw("--extra-body", `{"a":1}}`), ExitUsage, []string{"invalid --extra-body"}},
		{"extra-body stray bracket", sw("--extra-body", `{"a":1} ]`), ExitUsage, []string{"invalid --extra-body"}},
		{"extra-body twice", sw("--extra-body", `{"a":1} {"b":2}`), ExitUsage, []string{"invalid --extra-body"}},
		{"extra-body raw line break", sw("--extra-body", "{\"a\":\n"), ExitUsage, []string{"invalid --extra-body"}},
		{"extra-body and a flag", sw("--extra-body", `{"min_tokens":"a\nb"}`, "--min-tokens", "1"), ExitUsage, []string{`"min_tokens" to "a\nb"`}},
		{"header CRLF", sw("--header", "X-A: b\r\nX-B: c"), ExitUsage, []string{`invalid --header "X-A:…"`}},
		{"header LF", sw("--header", "X-A: b\nX-B: c"), ExitUsage, []string{`invalid --header "X-A:…"`}},
		{"header NUL", sw("--header", "X-A: b\x00c"), ExitUsage, []string{`invalid --header "X-A:…"`}},
		{"header bad name", sw("--header", "X(A): b"), ExitUsage, []string{`invalid --header name "X(A)"`}},
		{"header name with a line break", sw("--header", "X\nA: b"), ExitUsage, []string{`invalid --header name "X\nA"`}},
		{"header name with a space", sw("--header", "Authorization Bearer sk-secret: x"), ExitUsage, []string{`"Authorization…"`}},
		{"header no colon", sw("--header", "X-A\nb"), ExitUsage, []string{"invalid --header", "Name:Value"}},
		{"levels with a line break", sw("--levels", "1\n2"), ExitUsage, []string{`invalid --levels "1\n2"`}},
		{"api with a line break", sw("--api", "chat\nx"), ExitUsage, []string{`invalid --api "chat\nx"`}},
		{"url with a line break", []string{"sweep", "--url", "http://h\n/v1"}, ExitUsage, []string{"invalid --url"}},
		{"sim preset", []string{"sweep", "--sim", "--sim-preset", "a\nb"}, ExitUsage, []string{`invalid --sim-preset "a\nb"`}},
		{"unknown flag with a line break", []string{"sweep", "--lev\nels", "1"}, ExitUsage, []string{`unknown flag "--lev\nels"`}},
		{"serve-sim address with a line break", []string{"serve-sim", "--addr", "127.0.0.1:0\n"}, ExitFailure, []string{`cannot listen on --addr "127.0.0.1:0\n"`}},
		{"unknown command", []string{"swe\nep"}, ExitUsage, []string{`unknown command "swe\nep"`}},
		{"stray argument", sw("a\nb"), ExitUsage, []string{`unexpected argument "a\nb"`}},
		{"serve-sim negative decode-base", []string{"serve-sim", "--decode-base", "-1s"}, ExitUsage, []string{`invalid --decode-base "-1s"`, "≥ 0"}},
		{"serve-sim free step", []string{"serve-sim", "--decode-base", "0s", "--decode-per-seq", "0s"}, ExitUsage, []string{"--decode-base 0s plus --decode-per-seq 0s", "positive sum"}},
		{"serve-sim jitter", []string{"serve-sim", "--jitter", "1.5"}, ExitUsage, []string{`invalid --jitter "1.5"`}},
		{"serve-sim share", []string{"serve-sim", "--error-rate", "NaN"}, ExitUsage, []string{`invalid --error-rate "NaN"`}},
		{"serve-sim reasoning field", []string{"serve-sim", "--reasoning-field", "a\nb"}, ExitUsage, []string{`invalid --reasoning-field "a\nb"`}},
		{"serve-sim max-model-len", []string{"serve-sim", "--max-model-len", "0"}, ExitUsage, []string{`invalid --max-model-len "0"`}},
		{"serve-sim queue-limit", []string{"serve-sim", "--queue-limit", "-1"}, ExitUsage, []string{`invalid --queue-limit "-1"`}},
		{"report flag after the directory", []string{"report", "dir", "-x\ny"}, ExitUsage, []string{`flag "-x\ny"`}},
		{"report missing directory with a line break", []string{"report", "no\nsuch"}, ExitFailure, nil},
		{"compare one directory", []string{"compare", "a\nb"}, ExitUsage, []string{"at least two"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			code, stdout, stderr := runCLI(t, ctx, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstderr: %q", code, tc.code, stderr)
			}
			assertOneLine(t, stderr)
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q: %q", w, stderr)
				}
			}
			if strings.Contains(stdout+stderr, "sk-secret") {
				t.Errorf("the output quotes what may be a credential: %q", stderr)
			}
			noCrash(t, stderr)
		})
	}
}

// assertOneLine fails unless stderr is exactly one line that starts with
// "toksweep: " and ends in its only newline.
func assertOneLine(t *testing.T, stderr string) {
	t.Helper()
	if !strings.HasPrefix(stderr, "toksweep: ") || strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") ||
		strings.ContainsAny(stderr, "\r\v\f\u0085\u2028\u2029") {
		t.Errorf("stderr is not exactly one line: %q", stderr)
	}
}

// TestExitFlattensJoinedErrors: Exit turns an error of several lines
// (errors.Join, a wrapped server message) into one line that keeps every
// part, for every exit status.
func TestExitFlattensJoinedErrors(t *testing.T) {
	t.Parallel()
	joined := errors.Join(errors.New("first\r\n"), errors.New("  second\u2028third\tend"), errors.New("\x1b[31mred"))
	interrupted, stop := context.WithCancelCause(context.Background())
	stop(ErrInterrupted)
	cases := []struct {
		name string
		ctx  context.Context
		err  error
		code int
	}{
		{"failure", context.Background(), fmt.Errorf("wrapped: %w", joined), ExitFailure},
		{"usage", context.Background(), &UsageError{Msg: joined.Error()}, ExitUsage},
		{"interrupted", interrupted, fmt.Errorf("%w: %w", ErrInterrupted, joined), ExitInterrupted},
	}
	for _, tc := range cases {
		var b strings.Builder
		if code := Exit(tc.ctx, tc.err, &b); code != tc.code {
			t.Errorf("%s: exit %d, want %d", tc.name, code, tc.code)
		}
		assertOneLine(t, b.String())
		for _, part := range []string{"first; second; third end; ", " [31mred"} {
			if !strings.Contains(b.String(), part) {
				t.Errorf("%s: %q lacks %q", tc.name, b.String(), part)
			}
		}
	}
}
