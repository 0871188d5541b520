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
	"github.com/toksweep/toksweep/report/chart"
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
	t.Parallel()
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
	t.Parallel()
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
		{[]string{"--peak-rps", "10", dir, dir}, "given twice"},
		{[]string{dir, "--peak-rps", "10"}, "put flags first"},
		{[]string{"--peak-rps", "10", "--out", t.TempDir(), dir}, "--out is for a plan over several runs"},
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
	t.Parallel()
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

// failAll rewrites dir's recorded verdicts so that every level failed the
// SLO: a configuration that cannot serve the peak.
func failAll(t *testing.T, dir string) {
	t.Helper()
	p := filepath.Join(dir, rundir.SummaryFile)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(b), `"slo_pass": true`, `"slo_pass": false`)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPlanOverSeveralRuns: three configurations of one measured server
// (the saved SLO run, C=4 the largest passing level, X its requests_per_s):
// tp2 at 2 GPUs per replica, tp1 at 1 (the --gpus-per-replica default),
// and a copy whose every level failed the SLO. Each needs
// ceil(100 / (X × 0.75)) replicas; tp1 is the cheapest at replicas × 1 ×
// $2.5, tp2 costs twice as much, the failing copy is excluded. plan.json
// and pareto.svg (no PNG under --charts svg) go into --out, and no run
// directory changes.
func TestPlanOverSeveralRuns(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dirs := map[string]string{}
	for _, name := range []string{"tp2", "tp1", "failing"} {
		dirs[name] = filepath.Join(root, name)
		if err := os.Rename(copyRun(t, sloRun), dirs[name]); err != nil {
			t.Fatal(err)
		}
	}
	failAll(t, dirs["failing"])
	before := map[string]map[string]string{}
	for name, d := range dirs {
		before[name] = snapshot(t, d)
	}
	out := filepath.Join(root, "choice")
	code, stdout, stderr := runCLI(t, context.Background(), "plan", "--peak-rps", "100", "--gpu-hour-usd", "2.5",
		"--gpus-per-replica", "1", "--gpus-per-replica", "tp2=2", "--charts", "svg", "--out", out, dirs["tp2"], dirs["tp1"], dirs["failing"])
	if code != ExitOK {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", code, stderr, stdout)
	}
	var x float64
	for _, row := range readLevels(t, sloRun) {
		if row["concurrency"] == "4" {
			x = num(t, row, "requests_per_s")
		}
	}
	replicas := math.Ceil(100 / (x * 0.75))
	b, err := os.ReadFile(filepath.Join(out, plan.File))
	if err != nil {
		t.Fatal(err)
	}
	var j plan.ChoiceJSON
	if err := json.Unmarshal(b, &j); err != nil {
		t.Fatalf("%s: %v\n%s", plan.File, err, b)
	}
	if j.Chosen != dirs["tp1"] || len(j.Configs) != 3 {
		t.Fatalf("chose %q of %d, want %s:\n%s", j.Chosen, len(j.Configs), dirs["tp1"], stdout)
	}
	tp2, tp1, failing := j.Configs[0], j.Configs[1], j.Configs[2]
	if tp1.Plan == nil || float64(tp1.Plan.Replicas) != replicas || tp1.USDPerHour != replicas*2.5 || tp2.USDPerHour != 2*replicas*2.5 {
		t.Errorf("tp1 %+v, tp2 $%g/h; want %g replicas at $%g/h and $%g/h", tp1, tp2.USDPerHour, replicas, replicas*2.5, 2*replicas*2.5)
	}
	if failing.Plan != nil || !strings.Contains(failing.Excluded, "no tested level met the SLO") || !strings.Contains(stdout, "failing loses: it cannot serve the peak") {
		t.Errorf("failing copy: %+v\n%s", failing, stdout)
	}
	if !strings.Contains(stdout, "tp2 loses: $") || !strings.Contains(stdout, "(100.0%) more") {
		t.Errorf("stdout does not say why tp2 loses:\n%s", stdout)
	}
	if len(j.Pareto) != 15 { // five levels of each of three runs
		t.Errorf("%d Pareto points, want 15", len(j.Pareto))
	}
	for _, pt := range j.Pareto {
		if !(pt.PerUser > 0) || !(pt.PerGPU > 0) || math.IsInf(pt.PerUser, 0) || math.IsInf(pt.PerGPU, 0) {
			t.Errorf("point %+v: not a finite positive figure", pt)
		}
	}
	if _, err := os.Stat(filepath.Join(out, chart.ParetoName+".svg")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(out, chart.ParetoName+".png")); err == nil {
		t.Error("--charts svg wrote a PNG")
	}
	for name, d := range dirs {
		if after := snapshot(t, d); !maps.Equal(after, before[name]) {
			t.Errorf("plan changed run %s: %v", name, slices.Sorted(maps.Keys(after)))
		}
	}
}

// TestPlanOverSeveralRunsRefuses: what plan over several runs cannot
// answer is one line, exit 2, and writes nothing.
func TestPlanOverSeveralRunsRefuses(t *testing.T) {
	t.Parallel()
	a, b, bad := copyRun(t, sloRun), copyRun(t, sloRun), copyRun(t, sloRun)
	failAll(t, bad)
	out := filepath.Join(t.TempDir(), "out")
	base := []string{"plan", "--peak-rps", "100", "--charts", "svg"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--gpus-per-replica", "1", "--out", out, a, b}, "--gpu-hour-usd"},
		{[]string{"--gpu-hour-usd", "2", "--out", out, a, b}, "GPUs per replica of " + a},
		{[]string{"--gpus-per-replica", "1", "--gpu-hour-usd", "2", a, b}, "--out"},
		{[]string{"--gpus-per-replica", "1", "--gpu-hour-usd", "2", "--out", a, a, b}, "is run directory"},
		{[]string{"--gpus-per-replica", "nope=2", "--gpu-hour-usd", "2", "--out", out, a, b}, "not one of the run directories"},
		{[]string{"--gpus-per-replica", "0", "--gpu-hour-usd", "2", "--out", out, a, b}, "invalid --gpus-per-replica"},
		{[]string{"--gpus-per-replica", "1", "--gpus-per-replica", "2", "--gpu-hour-usd", "2", "--out", out, a, b}, "twice"},
		{[]string{"--gpus-per-replica", "1", "--gpu-hour-usd", "2", "--out", out, bad, bad + "/"}, "given twice"},
		{[]string{"--gpus-per-replica", "1", "--gpu-hour-usd", "2", "--out", out, bad, copyRun(t, bad)}, "no configuration serves the peak within the SLO"},
		{[]string{"--peak-rps", "1e300", "--gpus-per-replica", "1", "--gpu-hour-usd", "2", "--out", out, a, b}, "no configuration serves the peak"},
	} {
		code, stdout, stderr := runCLI(t, context.Background(), append(base, tc.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 || stdout != "" {
			t.Errorf("plan %q: exit %d, stdout %q, stderr %q; want exit %d, one line naming %q", tc.args, code, stdout, stderr, ExitUsage, tc.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused plan made %s", out)
	}
}
