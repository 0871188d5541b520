package app

import (
	"context"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/internal/testkit/rawserver"
)

// TestGarbageReplyIsNamed: a server that accepts connections and answers
// with something that is not HTTP fails the pre-flight check with one line
// that says so, not "cannot connect".
func TestGarbageReplyIsNamed(t *testing.T) {
	t.Parallel()
	srv := rawserver.New("garbage\r\n\r\n")
	defer srv.Close()
	url := srv.URL + "/v1"
	for _, extra := range [][]string{nil, {"--model", "m"}} { // the model listing, then the probe
		args := append([]string{"sweep", "--url", url, "--levels", "1", "--requests", "1", "--out", t.TempDir()}, extra...)
		code, _, stderr := runCLI(t, context.Background(), args...)
		if code != ExitFailure {
			t.Fatalf("%v: exit %d, want 1\n%s", extra, code, stderr)
		}
		assertOneLine(t, stderr)
		if !strings.Contains(stderr, `invalid HTTP response from `+url) || !strings.Contains(stderr, `malformed HTTP response "garbage"`) ||
			strings.Contains(stderr, "cannot connect") {
			t.Errorf("%v: %s", extra, stderr)
		}
	}
}
