package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/sim"
)

// Every nonsense --class or --classes is a one-line usage error naming
// what is wrong, before any load.
func TestClassRefusals(t *testing.T) {
	t.Parallel()
	file := func(body string) string {
		name := filepath.Join(t.TempDir(), "classes.json")
		if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return name
	}
	many := []string{}
	for i := range 17 {
		many = append(many, "--class", fmt.Sprintf("c%d", i))
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--class", "a:shares=1"}, `unknown key "shares"`},
		{[]string{"--class", "a:share=0"}, "share 0: want a positive weight"},
		{[]string{"--class", "a:share=-1"}, "share -1: want a positive weight"},
		{[]string{"--class", "a:share=NaN"}, "want a positive weight"},
		{[]string{"--class", "a:share=x"}, `share "x" is not a number`},
		{[]string{"--class", "a:share=1,share=2"}, "share is given twice"},
		{[]string{"--class", "a", "--class", "a:share=2"}, "a class named a is given twice"},
		{many, "17 classes, at most 16"},
		{[]string{"--class", ":share=1"}, "want a name of letters"},
		{[]string{"--class", "a b:share=1"}, "want a name of letters"},
		{[]string{"--class", "a:model"}, `"model" is not KEY=VALUE`},
		{[]string{"--class", "a:header=novalue"}, "want K:V[;K2:V2]"},
		{[]string{"--class", "a:header=X A:1"}, `header name "X A" cannot be sent`},
		{[]string{"--class", "a:slo=ttft<=2s"}, `unknown bound "ttft"`},
		{[]string{"--class", "a:slo=decode<=2"}, "decode takes >="},
		{[]string{"--class", "a:model=lora-x", "--sim-adapter", "lora-y"}, "model=lora-x is not served by --sim"},
		{[]string{"--classes", file(`[{"name": "a", "priority": 1}]`)}, `unknown field "priority"`},
		{[]string{"--classes", file(`{"name": "a"}`)}, "want a JSON list"},
		{[]string{"--classes", filepath.Join(t.TempDir(), "none.json")}, "--classes: open"},
		{[]string{"--class", "a:dataset=" + filepath.Join(t.TempDir(), "none.jsonl")}, "invalid --class a: dataset="},
		{[]string{"--class", "a:dataset=" + file(`{"prompt": "hi"}`), "--turns", "2"}, "the sessions mode builds its own"},
	} {
		code, _, stderr := runCLI(t, context.Background(), append([]string{"sweep", "--sim", "--levels", "1"}, tc.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%q: exit %d, stderr %q; want %d and one line with %q", tc.args, code, stderr, ExitUsage, tc.want)
		}
	}
}

// A credential given in a class's header= reaches the server but no
// output: not a usage error's echo, the console, the run's files.
func TestClassHeaderSecretsRedacted(t *testing.T) {
	t.Parallel()
	const secret = "sk-class-SECRET-0042"
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--sim", "--levels", "1",
		"--class", "a:header=Authorization:Bearer "+secret+";x-tenant:acme,bogus=1")
	if code != ExitUsage || strings.Contains(stderr, secret) {
		t.Errorf("bad --class: exit %d, stderr %q; want a usage error without the credential", code, stderr)
	}
	code, _, stderr = runCLI(t, context.Background(), "sweep", "--sim", "--levels", "1", "--class", "a:header=X-Api-Key:sk-class,"+secret)
	if code != ExitUsage || strings.Contains(stderr, secret) || strings.Contains(stderr, "sk-class") {
		t.Errorf("a comma in a header value: exit %d, stderr %q; want a usage error without the value", code, stderr)
	}
	out := t.TempDir()
	file := filepath.Join(t.TempDir(), "classes.json")
	if err := os.WriteFile(file, []byte(`[{"name": "b", "headers": {"X-Api-Key": "`+secret+`-2"}}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, context.Background(), "sweep", "--sim", "--sim-preset", "fast", "--levels", "1", "--requests", "8", "--max-tokens", "4",
		"--class", "a:header=Authorization:Bearer "+secret+";x-tenant:acme", "--classes", file, "--out", out, "--metrics-url", "off")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for name, text := range map[string]string{"stdout": stdout, "stderr": stderr} {
		if strings.Contains(text, secret) {
			t.Errorf("%s shows the credential:\n%s", name, text)
		}
	}
	err := filepath.Walk(out, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if strings.Contains(string(b), secret) {
			t.Errorf("%s holds the credential", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Config struct {
			Classes []struct {
				Name    string            `json:"name"`
				Headers map[string]string `json:"headers"`
			} `json:"classes"`
		} `json:"config"`
	}
	readJSON(t, filepath.Join(out, "summary.json"), &sum)
	if c := sum.Config.Classes; len(c) != 2 || c[1].Headers["Authorization"] != "REDACTED" || c[1].Headers["X-Tenant"] != "acme" ||
		c[0].Headers["X-Api-Key"] != "REDACTED" {
		t.Errorf("config.classes %+v, want the file's class first, the credential headers REDACTED", c)
	}
}

// Two classes with priorities against the simulator under overload (8
// users, 2 running at once): the high class (x-priority 0, served first)
// has a TTFT p95 below the low one's, with room (each low request waits
// for the high ones queued beside it), and each class has its own
// verdict: the low class's 1 ms bound fails (its requests queue), the high
// class's 30 s one passes, and the closing answer names the low class.
func TestClassPrioritiesUnderOverload(t *testing.T) {
	t.Parallel()
	url := steadySim(t, func(c *sim.Config) { c.MaxNumSeqs = 2 })
	starved := true
	for attempt := 1; ; attempt++ {
		out := t.TempDir()
		code, stdout, stderr := runCLI(t, context.Background(), "sweep", "--url", url, "--levels", "8", "--requests", "64", "--max-tokens", "12",
			"--class", "high:share=1,header=x-priority:0,slo=ttft-p95<=30s", "--class", "low:share=1,header=x-priority:9,slo=ttft-p95<=1ms",
			"--out", out, "--metrics-url", "off")
		if code != ExitOK {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		rows := map[string]map[string]string{}
		for _, row := range readLevels(t, out) {
			rows[row["class"]] = row
		}
		high, low, all := rows["high"], rows["low"], rows[""]
		if high == nil || low == nil || all == nil {
			t.Fatalf("levels.csv rows %v, want the level's, high's and low's", rows)
		}
		if high["slo_pass"] != "true" || low["slo_pass"] != "false" || all["slo_pass"] != "false" ||
			!strings.Contains(low["slo_failed"], "ttft_p95") || !strings.Contains(stdout, "class low: ttft_p95") {
			t.Fatalf("verdicts: high %q, low %q (%q), level %q; want pass, fail, fail, the answer naming class low:\n%s",
				high["slo_pass"], low["slo_pass"], low["slo_failed"], all["slo_pass"], stdout)
		}
		hi, lo := num(t, high, "ttft_p95_ms"), num(t, low, "ttft_p95_ms")
		if hi < 0.7*lo {
			t.Logf("TTFT p95: high %.1f ms, low %.1f ms", hi, lo)
			return
		}
		miss := fmt.Sprintf("TTFT p95 high %.1f ms, low %.1f ms: want high below 0.7× low", hi, lo)
		starved = starved && runStarved(t, out)
		switch {
		case attempt >= timingAttempts && starved:
			t.Logf("not judged: the machine starved every attempt; last: %s", miss)
			return
		case attempt >= timingAttempts:
			t.Fatal(miss)
		}
		t.Logf("attempt %d: %s", attempt, miss)
	}
}

// A LoRA mix against the simulator (adapters as model names, one of
// twice the base's cost, one model the server does not serve): each
// class is sent as its model, the per-class rows' requests, failures,
// output tokens and aggregate tok/s sum to the level's row.
func TestClassLoRAMixSums(t *testing.T) {
	t.Parallel()
	url := steadySim(t, func(c *sim.Config) { c.Adapters = []sim.Adapter{{Name: "lora-a", Cost: 1}, {Name: "lora-b", Cost: 2}} })
	out := t.TempDir()
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--url", url, "--model", "sim-fast", "--levels", "1,4", "--requests", "40", "--max-tokens", "8",
		"--class", "base:share=2", "--class", "a:share=1,model=lora-a", "--class", "b:share=1,model=lora-b", "--class", "gone:share=0.5,model=not-served",
		"--out", out, "--metrics-url", "off")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	type sums struct{ ok, failed, tokens, tps float64 }
	levels := map[string]*sums{}
	totals := map[string]sums{}
	for _, row := range readLevels(t, out) {
		c := row["concurrency"]
		s := sums{num(t, row, "requests_ok"), num(t, row, "requests_failed"), 0, 0}
		if s.ok > 0 {
			s.tokens, s.tps = num(t, row, "completion_tokens_mean")*s.ok, num(t, row, "aggregate_output_tps")
		}
		switch row["class"] {
		case "":
			totals[c] = s
			levels[c] = &sums{}
		case "gone":
			if s.ok != 0 || s.failed == 0 || row["err_http_4xx"] != row["requests_failed"] {
				t.Errorf("C=%s: the unserved model's class: %+v, err_http_4xx %s; want every request a 4xx", c, s, row["err_http_4xx"])
			}
		default:
			if s.ok == 0 || s.failed != 0 {
				t.Errorf("C=%s class %s: %+v, want every request served", c, row["class"], s)
			}
		}
		if l := levels[c]; row["class"] != "" {
			l.ok, l.failed, l.tokens, l.tps = l.ok+s.ok, l.failed+s.failed, l.tokens+s.tokens, l.tps+s.tps
		}
	}
	for c, total := range totals {
		got := *levels[c]
		if got.ok != total.ok || got.failed != total.failed || math.Abs(got.tokens-total.tokens) > 0.01*total.ok ||
			math.Abs(got.tps-total.tps) > 0.01*4 {
			t.Errorf("C=%s: the classes sum to %+v, the level is %+v", c, got, total)
		}
	}
	if len(totals) != 2 {
		t.Errorf("levels %v, want C=1 and C=4", totals)
	}
}

// 'toksweep report' re-renders a run with classes as it was written: its
// class rows, their verdicts and the level's, byte for byte.
func TestClassRunRerenders(t *testing.T) {
	t.Parallel()
	run := t.TempDir()
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--sim", "--sim-preset", "fast", "--levels", "1,2", "--requests", "12", "--max-tokens", "4",
		"--class", "a:share=2,slo=ttft-p95<=1ms", "--class", "b", "--slo-ttft-p95", "10s", "--out", run, "--metrics-url", "off")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	out := t.TempDir()
	if code, _, stderr := runCLI(t, context.Background(), "report", "--charts", "none", "--out", out, run); code != ExitOK {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	for _, name := range []string{"levels.csv", "summary.json"} {
		was, err := os.ReadFile(filepath.Join(run, name))
		if err != nil {
			t.Fatal(err)
		}
		now, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "summary.json" { // the levels, verdicts and answer; not when it was rendered
			var a, b struct {
				Levels         json.RawMessage `json:"levels"`
				Recommendation json.RawMessage `json:"recommendation"`
			}
			if json.Unmarshal(was, &a) != nil || json.Unmarshal(now, &b) != nil {
				t.Fatal("summary.json does not parse")
			}
			was, now = append(a.Levels, a.Recommendation...), append(b.Levels, b.Recommendation...)
		}
		if !bytes.Equal(was, now) {
			t.Errorf("%s re-rendered differs:\n%s\nwant\n%s", name, now, was)
		}
	}
	if rows := readLevels(t, run); len(rows) != 6 || rows[1]["class"] != "a" || rows[1]["slo_pass"] != "false" || rows[2]["slo_pass"] != "true" {
		t.Errorf("levels.csv rows %v, want a level row and a row per class at each level, class a failing its 1 ms bound, b passing", rows)
	}
}

// TestClassDatasets: a class with dataset= sends that file's prompts and
// the others the run's: every request of class long carries one of its
// prompts, of many more tokens than the run's prompt, in the server's
// own count (prompt_tokens).
func TestClassDatasets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	long := strings.Repeat("tokens for the long class ", 80) // about 400 words
	data := filepath.Join(dir, "long.jsonl")
	if err := os.WriteFile(data, []byte(fmt.Sprintf("{\"prompt\": %q}\n{\"prompt\": %q}\n", long, long+"again")), 0o600); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dir, "run")
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--sim", "--sim-preset", "fast", "--levels", "2", "--requests", "40", "--max-tokens", "4",
		"--prompt", "short", "--class", "long:dataset="+data, "--class", "short", "--out", run, "--metrics-url", "off")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	n := map[string]int{}
	for _, r := range readRecords(t, run) {
		n[r.Class]++
		if got := r.PromptTokens; (r.Class == "long") != (got > 100) {
			t.Errorf("a request of class %s had %d prompt tokens", r.Class, got)
		}
	}
	if n["long"] == 0 || n["short"] == 0 {
		t.Errorf("requests per class %v: want both", n)
	}
}
