package app

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

func TestSimOnlyFlagWithURLIsAUsageError(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "run")
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--url", srv.URL+"/v1", "--model", "m",
		"--sim-preset", "fast", "--levels", "1", "--out", out)
	want := "toksweep: --sim-preset applies only to --sim (the built-in simulator); with --url it would be ignored: drop it, or use --sim instead of --url\n"
	if code != 2 || !strings.HasSuffix(stderr, want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("a usage error sent %d requests", n)
	}
}

func TestCheckSimOnly(t *testing.T) {
	t.Parallel()
	cases := []struct {
		sim   bool
		given []string
		fails bool
	}{
		{false, nil, false},
		{true, []string{"sim-preset"}, false},
		{false, []string{"sim-preset"}, true},
	}
	for _, tc := range cases {
		if err := checkSimOnly(tc.sim, tc.given); (err != nil) != tc.fails {
			t.Errorf("checkSimOnly(%v, %q) = %v", tc.sim, tc.given, err)
		}
	}
}
