package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEmptyAnswersFailTheRun: a server whose streams carry no token (a role
// chunk, then [DONE]) used to count as successes, and a sweep of them
// exited 0 with aggregate 0.0. Empty answers are now err_empty, and a level
// without a single token makes the run exit 1 naming it.
func TestEmptyAnswersFailTheRun(t *testing.T) {
	t.Parallel()
	empty := streamFault{kind: faultErrorEvent, after: 0, event: "[DONE]"} // role chunk, [DONE]
	cases := []struct {
		name      string
		emptyFrom int64 // requests from this one on (the probe is 1) answer empty
		want      string
		errEmpty  map[string]string // concurrency → err_empty
	}{
		{"one level silent", 4, "no token at all at C=2 (empty=2)", map[string]string{"1": "0", "2": "2"}},
		{"every answer empty", 2, "no request of the whole sweep succeeded", map[string]string{"1": "2", "2": "2"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := startPaced(t, 5*time.Millisecond, 2*time.Millisecond, 4, func(p *pacedServer) {
				p.fault = func(n int64) streamFault {
					if n >= tc.emptyFrom {
						return empty
					}
					return streamFault{}
				}
			})
			out := t.TempDir() + "/run"
			code, _, stderr := runCLI(t, context.Background(), "sweep", "--url", p.url(), "--levels", "1,2",
				"--requests", "2", "--out", out)
			if code != ExitFailure || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d naming %q", code, stderr, ExitFailure, tc.want)
			}
			// summary.json, the console and the exit status agree.
			var sum struct {
				EndReason string `json:"end_reason"`
			}
			readJSON(t, filepath.Join(out, "summary.json"), &sum)
			if sum.EndReason != "failed" {
				t.Errorf("summary.json end_reason %q, want failed (exit %d)", sum.EndReason, code)
			}
			for _, row := range readLevels(t, out) {
				if want := tc.errEmpty[row["concurrency"]]; row["err_empty"] != want {
					t.Errorf("C=%s: err_empty %q, want %q", row["concurrency"], row["err_empty"], want)
				}
			}
		})
	}
}
