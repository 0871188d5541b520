package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/sim"
)

// serve-sim --adapter NAME[:COST], repeated or comma-separated, serves the
// adapters beside the base model; a missing cost is 1.
func TestServeSimAdapters(t *testing.T) {
	t.Parallel()
	got := serveSimConfig(t, "--adapter", "a:1.2", "--adapter", "b,c:2").Adapters
	want := []sim.Adapter{{Name: "a", Cost: 1.2}, {Name: "b", Cost: 1}, {Name: "c", Cost: 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("adapters %+v, want %+v", got, want)
	}
}

// Bad adapters are usage errors naming the flag; --sim-adapter is refused
// with --url, where it would be ignored.
func TestAdapterFlagsRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve-sim", "--adapter", "a:0.5"}, `invalid --adapter "a:0.5"`},
		{[]string{"serve-sim", "--adapter", "a:x"}, `invalid --adapter "a:x"`},
		{[]string{"serve-sim", "--adapter", "a", "--adapter", "a:2"}, "each NAME given once"},
		{[]string{"serve-sim", "--adapter", ":2"}, `invalid --adapter ":2"`},
		{[]string{"serve-sim", "--adapter", "sim-default"}, "differ from the model's"},
		{[]string{"sweep", "--sim", "--sim-adapter", "a:0"}, `invalid --sim-adapter "a:0"`},
		{[]string{"sweep", "--url", "http://127.0.0.1:1/v1", "--sim-adapter", "a"}, "--sim-adapter applies only to --sim"},
	} {
		code, _, stderr := runCLI(t, context.Background(), tc.args...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, ExitUsage, tc.want)
		}
	}
}

// sweep --sim --sim-adapter serves the adapter in-process: a sweep of it
// by name runs, and the run records the adapter as its model.
func TestSweepSimAdapter(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--sim", "--sim-preset", "fast", "--sim-adapter", "tenant-a:1.5",
		"--model", "tenant-a", "--levels", "2", "--requests", "4", "--max-tokens", "4", "--out", out)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if row := readLevels(t, out)[0]; row["requests_ok"] != "4" {
		t.Errorf("requests_ok %q, want 4", row["requests_ok"])
	}
	raw, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Config struct {
			Model string `json:"model"`
		} `json:"config"`
	}
	if err := json.Unmarshal(raw, &s); err != nil || s.Config.Model != "tenant-a" {
		t.Errorf("summary.json's model %q (%v), want tenant-a", s.Config.Model, err)
	}
}
