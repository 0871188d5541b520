package app

import (
	"context"
	"encoding/json"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/plan"
	"github.com/toksweep/toksweep/rundir"
)

const sloRun = "../testdata/runs/slo"

// copyRun copies the files of run dir src into a new temporary directory.
func copyRun(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	for _, name := range []string{rundir.LevelsFile, rundir.SummaryFile, rundir.RequestsFile} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestPlanCommand: plan prints its formulas and writes a valid plan.json
// beside the run, touching no other file there.
func TestPlanCommand(t *testing.T) {
	dir := copyRun(t, sloRun)
	before := snapshot(t, dir)
	code, stdout, stderr := runCLI(t, context.Background(), "plan", "--peak-rps", "100", "--users", "500",
		"--gpus-per-replica", "8", "--gpu-hour-usd", "2.5", dir)
	if code != ExitOK {
		t.Fatalf("exit %d\nstderr: %s", code, stderr)
	}
	for _, want := range []string{"replicas = ceil(λ / (X × h))", "replicas = ceil(N / (C × h))", "X = C / E[E2E]", "T × 86400", "G × P / (T × 3600) × 1e6"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	after := snapshot(t, dir)
	js, ok := after[plan.File]
	if !ok {
		t.Fatalf("no %s in %v", plan.File, slices.Sorted(maps.Keys(after)))
	}
	delete(after, plan.File)
	if len(after) != len(before) {
		t.Errorf("files after plan: %v, before: %v", slices.Sorted(maps.Keys(after)), slices.Sorted(maps.Keys(before)))
	}
	for name, b := range before {
		if after[name] != b {
			t.Errorf("plan changed %s", name)
		}
	}
	var j plan.JSON
	if err := json.Unmarshal([]byte(js), &j); err != nil {
		t.Fatalf("%s is not valid JSON: %v\n%s", plan.File, err, js)
	}
	// The replica count, from the chosen level's levels.csv row.
	var x float64
	for _, row := range readLevels(t, dir) {
		if row["concurrency"] == "4" {
			x = num(t, row, "requests_per_s")
		}
	}
	want := int(math.Ceil(100 / (x * 0.75)))
	if j.Level.Concurrency != 4 || j.Replicas != want || j.ReplicasN1 != want+1 || j.UserReplicas == nil || *j.UserReplicas != 167 {
		t.Errorf("%s: level C=%d, replicas %d/%d, user replicas %v; want C=4, %d/%d, 167 (= ceil(500 / (4 × 0.75)))",
			plan.File, j.Level.Concurrency, j.Replicas, j.ReplicasN1, j.UserReplicas, want, want+1)
	}
	if m := regexp.MustCompile(`= (\d+); N\+1 \(one spare\): (\d+)`).FindStringSubmatch(stdout); m == nil || m[1] != strconv.Itoa(want) || m[2] != strconv.Itoa(want+1) {
		t.Errorf("console replicas %v, want %d and %d:\n%s", m, want, want+1, stdout)
	}
}

// TestPlanUsage: a command-line mistake is one line and exit 2, and
// writes nothing.
func TestPlanUsage(t *testing.T) {
	dir := copyRun(t, sloRun)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{dir}, "--peak-rps"},
		{[]string{"--peak-rps", "0", dir}, "--peak-rps"},
		{[]string{"--peak-rps", "-3", dir}, "--peak-rps"},
		{[]string{"--peak-rps", "abc", dir}, "--peak-rps"},
		{[]string{"--peak-rps", "10", "--headroom", "0", dir}, "--headroom"},
		{[]string{"--peak-rps", "10", "--headroom", "1.5", dir}, "--headroom"},
		{[]string{"--peak-rps", "10", "--users", "0", dir}, "--users"},
		{[]string{"--peak-rps", "10", "--gpus-per-replica", "8", dir}, "--gpu-hour-usd"},
		{[]string{"--peak-rps", "10", "--gpu-hour-usd", "2", dir}, "--gpus-per-replica"},
		{[]string{"--peak-rps", "10"}, "one run directory"},
		{[]string{"--peak-rps", "10", dir, dir}, "one run directory"},
		{[]string{dir, "--peak-rps", "10"}, "put flags first"},
		{[]string{"--peak-rps", "10", "--bogus", dir}, "unknown flag"},
		// Counts the run cannot give (issue 25, item 16): refused, never
		// printed or stored as -9223372036854775808.
		{[]string{"--peak-rps", "1e308", dir}, "--peak-rps needs"},
		{[]string{"--peak-rps", "10", "--headroom", "1e-300", dir}, "--peak-rps needs"},
		{[]string{"--peak-rps", "10", "--users", "1000000000000000000", dir}, "--users"},
	}
	for _, tc := range cases {
		code, _, stderr := runCLI(t, context.Background(), append([]string{"plan"}, tc.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("plan %q: exit %d, stderr %q; want exit %d, one line naming %s", tc.args, code, stderr, ExitUsage, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, plan.File)); err == nil {
		t.Errorf("a usage error wrote %s", plan.File)
	}
}

// TestPlanRefusesIncompleteRun: a directory that is not a whole finished
// run gets one line, exit 1, and keeps its files as they were.
func TestPlanRefusesIncompleteRun(t *testing.T) {
	unfinished := func(dir string) error {
		p := filepath.Join(dir, rundir.SummaryFile)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		b = regexp.MustCompile(`"finished": "[^"]*"`).ReplaceAll(b, []byte(`"finished": "0001-01-01T00:00:00Z"`))
		return os.WriteFile(p, b, 0o644)
	}
	remove := func(name string) func(string) error {
		return func(dir string) error { return os.Remove(filepath.Join(dir, name)) }
	}
	cases := []struct {
		name  string
		spoil func(string) error
		want  string
	}{
		{"no levels.csv", remove(rundir.LevelsFile), "no levels.csv"},
		{"no summary.json", remove(rundir.SummaryFile), rundir.SummaryFile},
		{"no requests.jsonl", remove(rundir.RequestsFile), rundir.RequestsFile},
		{"unfinished", unfinished, "not finished"},
		{"bad summary", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, rundir.SummaryFile), []byte("{\n"), 0o644)
		}, rundir.SummaryFile},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyRun(t, sloRun)
			if err := tc.spoil(dir); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, dir)
			code, stdout, stderr := runCLI(t, context.Background(), "plan", "--peak-rps", "10", dir)
			if code != ExitFailure || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and one line naming %q", code, stdout, stderr, ExitFailure, tc.want)
			}
			after := snapshot(t, dir)
			if len(after) != len(before) {
				t.Errorf("files after: %v, before: %v", slices.Sorted(maps.Keys(after)), slices.Sorted(maps.Keys(before)))
			}
		})
	}
	code, _, stderr := runCLI(t, context.Background(), "plan", "--peak-rps", "10", filepath.Join(t.TempDir(), "missing"))
	if code != ExitFailure || strings.Count(stderr, "\n") != 1 {
		t.Errorf("missing directory: exit %d, stderr %q", code, stderr)
	}
}
