package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/workload/trace"
)

// smallTrace writes a 41-request Mooncake-format trace of 20 requests per
// second over 2 s: prompts of 200 to 1000 tokens opening with a shared
// block, outputs of 4 tokens.
func smallTrace(t *testing.T) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(22, 40))
	var b strings.Builder
	next := int64(10)
	for i := range 41 {
		in := 200 + rng.IntN(800)
		ids := []int64{1}
		for len(ids) < (in+511)/512 {
			ids = append(ids, next)
			next++
		}
		fmt.Fprintf(&b, `{"timestamp": %d, "input_length": %d, "output_length": 4, "hash_ids": %s}`+"\n", i*50, in, strings.ReplaceAll(fmt.Sprint(ids), " ", ", "))
	}
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// inputErrors is the worst relative error of the run's prompt lengths
// against the trace's, and how many requests succeeded.
func inputErrors(t *testing.T, out, path string) (worst float64, ok int) {
	t.Helper()
	tr, err := trace.ReadFile(path, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	byLine := map[int]int{}
	for _, r := range tr.Requests {
		byLine[r.Line-1] = r.Input
	}
	for _, r := range readRecords(t, out) {
		if !r.OK() {
			continue
		}
		ok++
		worst = math.Max(worst, math.Abs(float64(r.PromptTokens)/float64(byLine[r.PromptID])-1))
	}
	return worst, ok
}

// A replay through the command line against the simulator: two speeds are
// two levels of every request of the trace; with --prompt-token-ids the
// input lengths are the trace's exactly, and with chat (scaled by the
// pre-flight's tokens per word) within 5%; levels.csv's length errors say
// so; the trace summary is on the console and in summary.json.
func TestReplayCommandLine(t *testing.T) {
	t.Parallel()
	path := smallTrace(t)
	for _, c := range []struct {
		name string
		args []string
		tol  float64
	}{
		{"token ids", []string{"--api", "completions", "--prompt-token-ids"}, 0}, // the simulator's metrics scraped
		{"chat", []string{"--metrics-url", "off"}, 0.05},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			args := append([]string{"sweep", "--sim", "--sim-preset", "fast", "--trace", path, "--replay-speed", "1,2", "--out", out}, c.args...)
			code, stdout, stderr := runCLI(t, context.Background(), args...)
			if code != ExitOK {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			rows := readLevels(t, out)
			if len(rows) != 2 {
				t.Errorf("%d levels, want 2", len(rows))
			}
			// levels.csv's length errors: exact with token ids; the output
			// lengths are the trace's with the simulator (max_tokens and
			// ignore_eos), both ways.
			for _, row := range rows {
				if c.tol == 0 && (row["input_length_error_mean"] != "0.0000" || row["input_length_error_p99"] != "0.0000") {
					t.Errorf("speed %s: input length error mean %q p99 %q, want 0.0000", row["rate"], row["input_length_error_mean"], row["input_length_error_p99"])
				}
				if row["output_length_error_p99"] != "0.0000" {
					t.Errorf("speed %s: output length error p99 %q, want 0.0000", row["rate"], row["output_length_error_p99"])
				}
			}
			worst, ok := inputErrors(t, out, path)
			if ok != 82 || worst > c.tol {
				t.Errorf("%d requests ok (want 82), worst input length error %.4f (want ≤ %g)", ok, worst, c.tol)
			}
			t.Logf("worst input length error %.4f", worst)
			if c.tol == 0 && !strings.Contains(stderr, "lengths against the trace: input error mean +0.0% p99 0.0% (41 requests)") {
				t.Errorf("no exact length errors on the progress line:\n%s", stderr)
			}
			// Scraped, the server's prefix-hit rate is beside the trace's best.
			prefix := regexp.MustCompile(`\n  prefix hits: the server's \d+\.\d%, the trace's best possible \d+\.\d%\n`)
			if n := len(prefix.FindAllString(stderr, -1)); n != 2 && c.tol == 0 || n != 0 && c.tol > 0 {
				t.Errorf("%d prefix-hit lines (want one a level when scraped):\n%s", n, stderr)
			}
			if !strings.Contains(stdout, "trace "+path+" (mooncake, blocks of 512 tokens): 41 requests (0 lines skipped) over 2.0 s, mean 20 req/s") ||
				!strings.Contains(stdout, "best possible prefix-hit rate") {
				t.Errorf("no trace summary on the console:\n%s", stdout)
			}
			var sum struct {
				Trace *trace.Summary `json:"trace"`
			}
			data, err := os.ReadFile(filepath.Join(out, "summary.json"))
			if err != nil || json.Unmarshal(data, &sum) != nil || sum.Trace == nil || sum.Trace.Requests != 41 {
				t.Errorf("summary.json's trace: %+v (%v)", sum.Trace, err)
			}
		})
	}
}

// The replay flags' mistakes are usage errors, before any load.
func TestReplayFlagErrors(t *testing.T) {
	t.Parallel()
	path := smallTrace(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--prompt-token-ids"}, "apply to a trace replay"},
		{[]string{"--trace", path, "--rates", "1"}, "--rates and --trace are exclusive: they set two load modes (rate and replay), and a sweep runs one"},
		{[]string{"--trace", path, "--levels", "1"}, "--trace and --levels are exclusive"},
		{[]string{"--trace", path, "--arrival", "constant"}, "--arrival and --trace are exclusive"},
		{[]string{"--trace", path, "--prompt-token-ids"}, "needs --api completions"},
		{[]string{"--trace", path, "--replay-speed", "2,1"}, "increasing order"},
		{[]string{"--trace", path, "--replay-speed", "0"}, `"0" is not a speed`},
		{[]string{"--trace", path, "--trace-format", "csv"}, "unknown trace format"},
		{[]string{"--trace", path, "--trace-window", "1h:1s"}, "holds no request"},
		{[]string{"--trace", path, "--trace-block-size", "100000"}, "hash ids for"},
		{[]string{"--trace", filepath.Join(t.TempDir(), "none.jsonl")}, "no such file"},
		{[]string{"--trace", path, "--api", "completions", "--prompt-token-ids", "--vocab-size", "10"}, "invalid --vocab-size"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, _, stderr := runCLI(t, context.Background(), append([]string{"sweep", "--sim", "--out", t.TempDir()}, c.args...)...)
			if code != ExitUsage || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, want %d with %q:\n%s", code, ExitUsage, c.want, stderr)
			}
		})
	}
}

// A trace sets each request's prompt and lengths, so the flags that set
// them are usage errors beside --trace: exit 2 and one line naming the
// flag, before any load. Before, the sweep started (and --prompt,
// --max-tokens … were silently ignored or fought the trace).
func TestReplayRefusesPromptAndLengthFlags(t *testing.T) {
	t.Parallel()
	path := smallTrace(t)
	prompt := filepath.Join(t.TempDir(), "prompt.txt")
	if err := os.WriteFile(prompt, []byte("Say hi."), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		flag string
		args []string
	}{
		{"--prompt", []string{"--prompt", "hi"}},
		{"--prompt-file", []string{"--prompt-file", prompt}},
		{"--dataset", []string{"--dataset", filepath.Join("..", "testdata", "datasets", "requests.jsonl")}},
		{"--input-tokens", []string{"--input-tokens", "100"}},
		{"--turns", []string{"--turns", "2"}},
		{"--max-tokens", []string{"--max-tokens", "10"}},
		{"--min-tokens", []string{"--min-tokens", "2"}},
	} {
		t.Run(c.flag, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "run")
			code, stdout, stderr := runCLI(t, context.Background(), append([]string{"sweep", "--sim", "--trace", path, "--out", out}, c.args...)...)
			want := "toksweep: " + c.flag + " does not apply to --trace: the trace sets each request's prompt and lengths\n"
			if c.flag == "--turns" { // the flags of another mode: the one rule between modes
				want = "toksweep: --trace and --turns are exclusive: they set two load modes (replay and sessions), and a sweep runs one\n"
			}
			if code != ExitUsage || stderr != want || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit %d and the one line %q", code, stdout, stderr, ExitUsage, want)
			}
			if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("--out %s: %v, want it never made", out, err)
			}
		})
	}
}

// A trace whose requests all share one instant (three at 5 ms, or a
// single one) has no mean rate, so no speed of it is a rate: the sweep
// refuses it with exit 2 and a one-line error naming the file, before any
// load and before --out is made.
func TestReplayRefusesAnUntimedTrace(t *testing.T) {
	t.Parallel()
	line := `{"timestamp": 5, "input_length": 600, "output_length": 4, "hash_ids": [1, 2]}` + "\n"
	for _, c := range []struct {
		name  string
		lines int
	}{{"three at one instant", 3}, {"one request", 1}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path, out := filepath.Join(dir, "trace.jsonl"), filepath.Join(dir, "run")
			if err := os.WriteFile(path, []byte(strings.Repeat(line, c.lines)), 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := runCLI(t, context.Background(), "sweep", "--sim", "--trace", path, "--out", out)
			want := "--trace " + path + ": its requests all share one instant, so it has no rate to replay at a speed"
			if code != ExitUsage || len(lines(stderr)) != 1 || !strings.Contains(stderr, want) {
				t.Errorf("exit %d, want %d with the one line %q:\n%s", code, ExitUsage, want, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout: %q, want nothing", stdout)
			}
			if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("--out %s: %v, want it never made", out, err)
			}
		})
	}
}

// --replay-speed auto answers a speed: the search starts at speed 1 (the
// trace's mean rate, 20 req/s), and the closing paragraph names the
// levels' speeds.
func TestReplaySpeedAuto(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a search of up to 8 replays")
	}
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), "sweep", "--sim", "--sim-preset", "fast", "--api", "completions", "--prompt-token-ids",
		"--trace", smallTrace(t), "--replay-speed", "auto", "--slo-ttft-p95", "2s", "--out", out, "--metrics-url", "off")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if rows := readLevels(t, out); len(rows) == 0 || rows[0]["rate"] != "1.0000" {
		t.Fatalf("the first level at speed %v: want a search starting at speed 1", rows)
	}
	if !strings.Contains(stdout, "Replay speeds (offered rate = speed × the trace's mean rate, 20 req/s): 1× = 20 req/s") {
		t.Errorf("no speeds named:\n%s", stdout)
	}
	// A starved machine can make speed 1 itself fall behind; then the
	// search has no passing speed to answer, and says so.
	if !strings.Contains(stdout, "--replay-speed auto: the highest stable speed meeting the SLO is") {
		if !strings.Contains(stdout, "--replay-speed auto: no speed tried was stable") {
			t.Errorf("no answer:\n%s", stdout)
		}
		t.Logf("speed 1 failed on this machine: %s", stdout[strings.LastIndex(stdout, "--replay-speed auto"):])
	}
}

// plan --peak-speed K on a replay run: λ = K × the trace's mean rate, shown,
// and the plan is --peak-rps λ's: the replicas ceil(λ / (X × h)) by hand
// from plan.json's X. A run that is no replay is a usage error.
func TestPlanPeakSpeed(t *testing.T) {
	t.Parallel()
	// A starved machine can make the one level unstable, and then there is
	// nothing to plan on: that is retried.
	var out, stdout string
	for attempt := 1; ; attempt++ {
		out = t.TempDir()
		code, _, stderr := runCLI(t, context.Background(), "sweep", "--sim", "--sim-preset", "fast", "--api", "completions", "--prompt-token-ids",
			"--trace", smallTrace(t), "--replay-speed", "1", "--slo-ttft-p95", "10s", "--out", out, "--metrics-url", "off")
		if code != ExitOK {
			t.Fatalf("sweep: exit %d\n%s", code, stderr)
		}
		code, stdout, stderr = runCLI(t, context.Background(), "plan", "--peak-speed", "3", out)
		if code == ExitOK {
			break
		}
		if attempt == 3 || !strings.Contains(stderr, "cannot bear a verdict") {
			t.Fatalf("plan: exit %d\n%s\n%s", code, stderr, stdout)
		}
		t.Logf("attempt %d: %s", attempt, stderr)
	}
	// The trace: 41 requests 50 ms apart, (41 − 1) / 2 s = 20 req/s.
	if !strings.Contains(stdout, "peak rate λ = 3 (--peak-speed) × 20 req/s (the trace's mean rate) = 60 req/s") {
		t.Errorf("no conversion shown:\n%s", stdout)
	}
	var p struct {
		PeakRPS  float64 `json:"peak_rps"`
		Headroom float64 `json:"headroom"`
		Replicas int     `json:"replicas"`
		Level    struct {
			RequestsPerS float64 `json:"requests_per_s"`
		} `json:"level"`
	}
	data, err := os.ReadFile(filepath.Join(out, "plan.json"))
	if err != nil || json.Unmarshal(data, &p) != nil {
		t.Fatalf("plan.json: %v %s", err, data)
	}
	want := int(math.Ceil(60 / (p.Level.RequestsPerS * p.Headroom)))
	if math.Abs(p.PeakRPS-60) > 1e-9 || p.Level.RequestsPerS <= 0 || p.Replicas != want {
		t.Errorf("plan.json: peak %v, X %v, h %v, replicas %d; want peak 60 and ceil(60 / (X × h)) = %d", p.PeakRPS, p.Level.RequestsPerS, p.Headroom, p.Replicas, want)
	}
	closed := t.TempDir()
	if code, _, stderr := runCLI(t, context.Background(), "sweep", "--sim", "--sim-preset", "fast", "--levels", "1", "--requests", "2", "--max-tokens", "4", "--out", closed, "--metrics-url", "off"); code != ExitOK {
		t.Fatalf("closed sweep: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runCLI(t, context.Background(), "plan", "--peak-speed", "3", closed); code != ExitUsage || !strings.Contains(stderr, "needs a trace replay run") {
		t.Errorf("plan --peak-speed on a closed-loop run: exit %d\n%s", code, stderr)
	}
}

// plan --help shows --peak-speed as a way to give the peak, beside
// --peak-rps: a usage line for a trace replay run, and --peak-rps not
// "(required)", since --peak-speed stands in for it. Before, the usage
// lines had only --peak-rps, marked required.
func TestPlanHelpDocumentsPeakSpeed(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCLI(t, context.Background(), "plan", "--help")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"toksweep plan --peak-speed K [--users N] [--headroom 0.75] [--gpus-per-replica G --gpu-hour-usd P] DIR\n",
		"A trace replay run (sweep --trace) takes --peak-speed K",
		"--peak-speed value",
		"peak arrival rate λ to serve, in requests per second (or --peak-speed)",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("plan --help lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "(required)") {
		t.Errorf("plan --help marks a flag required, though --peak-rps and --peak-speed stand in for each other:\n%s", stdout)
	}
}
