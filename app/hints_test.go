package app

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/sim"
)

// A --url without /v1 in front of a server that serves /v1 is named as such
// first, whether the model listing or (with --model) the pre-flight request
// met the 404.
func TestURLWithoutV1SuggestsV1(t *testing.T) {
	t.Parallel()
	cfg, err := sim.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSuffix(startSimWith(t, cfg), "/v1")
	for name, extra := range map[string][]string{"listing": nil, "pre-flight": {"--model", "sim"}} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			args := append([]string{"sweep", "--url", base + "/", "--levels", "1", "--requests", "1", "--out", out}, extra...)
			code, _, stderr := runCLI(t, context.Background(), args...)
			want := "toksweep: did you mean --url " + base + "/v1? " + base + "/ answers 404 but " + base + "/v1/models answers; no load sent\n"
			if code != 2 || !strings.HasSuffix(stderr, want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and %q", code, stderr, want)
			}
		})
	}
}

// A server that has no /v1 either keeps the plain hint.
func TestURLWithoutV1NoSuggestionWhenV1FailsToo(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--url", srv.URL, "--levels", "1", "--out", filepath.Join(t.TempDir(), "run"))
	if code == 0 || strings.Contains(stderr, "did you mean") || !strings.Contains(stderr, "does --url end in /v1?") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
}
