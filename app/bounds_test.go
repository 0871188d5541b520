package app

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/mode/closed"
	"github.com/toksweep/toksweep/workload"
)

// TestInputBoundsAreUsageErrors checks that every bounded input, over its
// bound, is a one-line usage error naming the flag and the bound, before
// anything is sent or read whole: /dev/zero as a prompt file is refused
// after 16 MiB, not read until memory runs out.
func TestInputBoundsAreUsageErrors(t *testing.T) {
	t.Parallel()
	levels := make([]string, closed.MaxLevelList+1)
	for i := range levels {
		levels[i] = fmt.Sprint(i + 1)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"prompt file /dev/zero", []string{"--prompt-file", "/dev/zero"}, `--prompt-file "/dev/zero" is larger than 16 MiB`},
		{"prompt file /dev/urandom", []string{"--prompt-file", "/dev/urandom"}, `--prompt-file "/dev/urandom" is larger than 16 MiB`},
		{"dataset /dev/zero", []string{"--dataset", "/dev/zero", "--dataset-format", "jsonl"}, "/dev/zero:1: line longer than 16 MiB"},
		{"input tokens", []string{"--input-tokens", "100000000"}, `invalid --input-tokens "100000000": at most 1000000 tokens`},
		{"input tokens overflow", []string{"--input-tokens", "99999999999999999999999"}, `invalid --input-tokens "99999999999999999999999": at most`},
		{"input stddev", []string{"--input-tokens", "100:2000000"}, `invalid --input-tokens "100:2000000": at most`},
		{"max tokens", []string{"--max-tokens", fmt.Sprint(workload.MaxOutputTokens + 1)}, "invalid --max-tokens 1000001: at most 1000000"},
		{"requests", []string{"--requests", "1000000000"}, "invalid --requests 1000000000: at most 1000000"},
		{"warmup", []string{"--warmup", "1000000000"}, "invalid --warmup 1000000000: at most 1000000"},
		{"repeat", []string{"--repeat", "1000000"}, "invalid --repeat 1000000: at most 1000"},
		{"levels", []string{"--levels", strings.Join(levels, ",")}, "invalid --levels: 1001 levels, at most 1000"},
		{"extra body", []string{"--extra-body", `{"x": "` + strings.Repeat("y", maxExtraBody) + `"}`}, "invalid --extra-body: 1048585 bytes, at most 1048576"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"sweep", "--url", "http://127.0.0.1:9/v1", "--out", t.TempDir()}, tt.args...)
			code, _, stderr := runCLI(t, context.Background(), args...)
			if code != ExitUsage || !strings.Contains(stderr, tt.want) || strings.Count(stderr, "\n") != 1 {
				t.Fatalf("exit %d, stderr %q; want %d and one line with %q", code, stderr, ExitUsage, tt.want)
			}
		})
	}
}
