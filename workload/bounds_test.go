package workload

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInputBounds checks that every input over its bound is a one-line
// error naming the flag or file, and that a device that never ends is
// refused without being read to its end (the test would not end).
func TestInputBounds(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, "long.jsonl")
	if err := os.WriteFile(long, []byte(`{"prompt": "a"}`+"\n"+`{"prompt": "`+strings.Repeat("x", MaxPromptBytes)+`"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{"prompt file /dev/zero", Options{PromptFile: "/dev/zero"}, `--prompt-file "/dev/zero" is larger than 16 MiB`},
		{"prompt file /dev/urandom", Options{PromptFile: "/dev/urandom"}, `--prompt-file "/dev/urandom" is larger than 16 MiB`},
		{"jsonl /dev/zero", Options{Dataset: "/dev/zero", Format: JSONL}, "/dev/zero:1: line longer than 16 MiB"},
		{"jsonl long line", Options{Dataset: long}, long + ":2: line longer than 16 MiB"},
		{"sharegpt /dev/zero", Options{Dataset: "/dev/zero", Format: ShareGPT}, "/dev/zero:1: want a JSON array"},
		{"input tokens", Options{InputTokens: 100_000_000}, "invalid --input-tokens 100000000:0: at most 1000000 tokens"},
		{"input stddev", Options{InputTokens: 10, InputStddev: MaxInputTokens + 1}, "at most 1000000 tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(tt.o)
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("err = %v, want one line with %q", err, tt.want)
			}
		})
	}
}

// TestDatasetSizeBound checks boundedReader: an input of exactly n bytes
// reads whole, one byte more is errTooLarge.
func TestDatasetSizeBound(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int64
		fail bool
	}{{"12345", 5, false}, {"123456", 5, true}, {"", 0, false}, {"1", 0, true}} {
		b := &boundedReader{r: strings.NewReader(tt.in), n: tt.n}
		got, err := io.ReadAll(b)
		if b.over != tt.fail || (err == errTooLarge) != tt.fail || int64(len(got)) != min(tt.n, int64(len(tt.in))) {
			t.Errorf("%q over %d bytes: read %q, err %v, over %v; want too large %v", tt.in, tt.n, got, err, b.over, tt.fail)
		}
	}
}

// TestJSONLMaxTokensBound checks the bound on a JSONL max_tokens.
func TestJSONLMaxTokensBound(t *testing.T) {
	for in, want := range map[string]string{
		fmt.Sprintf(`{"prompt": "a", "max_tokens": %d}`, MaxOutputTokens+1): `x:1: "max_tokens" 1000001 is over 1000000`,
		`{"prompt": "a", "max_tokens": 99999999999999999999999}`:            `x:1: "max_tokens" 99999999999999999999999 is over`,
		`{"prompt": "a", "max_tokens": -99999999999999999999999}`:           `x:1: "max_tokens" must be a positive integer`,
	} {
		if _, err := ReadJSONL(strings.NewReader(in), "x"); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: err = %v, want prefix %q", in, err, want)
		}
	}
	if ps, err := ReadJSONL(strings.NewReader(fmt.Sprintf(`{"prompt": "a", "max_tokens": %d}`, MaxOutputTokens)), "x"); err != nil || ps[0].MaxTokens != MaxOutputTokens {
		t.Errorf("max_tokens at the bound: %v %v", ps, err)
	}
}

// TestShareGPTLineAfterManyConversations checks that a streamed ShareGPT
// file still names the right line of an error far into it.
func TestShareGPTLineAfterManyConversations(t *testing.T) {
	var b strings.Builder
	b.WriteString("[\n")
	for range 500 {
		b.WriteString(`{"conversations": [{"from": "human", "value": "` + strings.Repeat("hi ", 100) + `"},` + "\n" + `{"from": "gpt", "value": "yes"}]},` + "\n")
	}
	b.WriteString(`{"conversations": 5}` + "\n]\n")
	_, _, err := ReadShareGPT(strings.NewReader(b.String()), "x")
	if want := "x:1002: conversation 500: cannot unmarshal number"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v, want prefix %q", err, want)
	}
}
