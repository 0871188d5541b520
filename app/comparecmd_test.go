package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/report/chart"
	"github.com/toksweep/toksweep/rundir"
	"github.com/toksweep/toksweep/sim"
)

// slowedCopy writes a copy of the saved run whose every request decodes
// factor times slower (chunk gaps stretched), and returns its directory.
func slowedCopy(t *testing.T, factor float64) string {
	t.Helper()
	stretch := func(d time.Duration) time.Duration { return time.Duration(float64(d) * factor) }
	return rewrittenCopy(t, savedRun, func(r *client.Record) {
		if len(r.ChunkAt) == 0 {
			return
		}
		first := r.ChunkAt[0]
		for j := range r.ChunkAt {
			r.ChunkAt[j] = first + stretch(r.ChunkAt[j]-first)
		}
		tail := r.End - r.LastToken
		r.LastToken = r.Start + r.ChunkAt[len(r.ChunkAt)-1]
		r.End = r.LastToken + tail
	})
}

// stampedCopy writes a copy of a run whose chunks are timed by the
// simulator's send stamps instead of their arrival, and returns its
// directory: the run as the server paced it, free of the client's
// scheduling delays.
func stampedCopy(t *testing.T, dir string) string {
	t.Helper()
	return rewrittenCopy(t, dir, func(r *client.Record) {
		n := len(r.ChunkAt)
		if n == 0 || len(r.SendLag) != n {
			return
		}
		for i := range r.ChunkAt {
			r.ChunkAt[i] -= r.SendLag[i]
		}
		r.FirstToken, r.LastToken = r.Start+r.ChunkAt[0], r.Start+r.ChunkAt[n-1]
		if r.FirstContent != 0 {
			r.FirstContent = r.FirstToken
		}
	})
}

// rewrittenCopy writes a copy of the saved run in dir (summary.json and
// requests.jsonl) with every record passed through edit, and returns its
// directory.
func rewrittenCopy(t *testing.T, dir string, edit func(*client.Record)) string {
	t.Helper()
	out := t.TempDir()
	f, err := os.Open(filepath.Join(dir, rundir.RequestsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := rundir.ReadRecords(f)
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		edit(&recs[i])
	}
	var b bytes.Buffer // each record a JSON line, which is what ReadRecords reads
	enc := json.NewEncoder(&b)
	for i := range recs {
		if err := enc.Encode(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	summary, err := os.ReadFile(filepath.Join(dir, rundir.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string][]byte{rundir.RequestsFile: b.Bytes(), rundir.SummaryFile: summary} {
		if err := os.WriteFile(filepath.Join(out, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestCompare(t *testing.T) {
	t.Parallel()
	slow := slowedCopy(t, 1.5)
	tests := []struct {
		name    string
		runs    []string
		verdict string // in every decode row of compare.csv
		charts  string // --charts: the overlay files written
	}{
		// The saved run ran each level once: the intervals are shown, no
		// verdict rests on them (TestCompareSlowerSim has the verdicts).
		{"same run", []string{savedRun, savedRun}, "no verdict from one run a side (+0.0%", "png,svg"},
		{"B decodes 1.5× slower", []string{savedRun, slow}, "no verdict from one run a side (-33.3%", "svg"},
		{"no chart files", []string{savedRun, slow}, "no verdict from one run a side (-33.3%", "none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			args := append([]string{"compare", "--charts", tt.charts, "--out", out}, tt.runs...)
			code, stdout, stderr := runCLI(t, context.Background(), args...)
			if code != ExitOK {
				t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
			}
			if !strings.Contains(stdout, "B vs A: compared C=1,2,4 (only in A: none; only in B: none)") {
				t.Errorf("stdout does not say which levels were compared:\n%s", stdout)
			}
			rows := readCompareCSV(t, filepath.Join(out, CompareFile))
			decodes := 0
			for _, row := range rows {
				if row["metric"] != "decode_tps_p50" {
					continue
				}
				decodes++
				if !strings.HasPrefix(row["verdict"], tt.verdict) {
					t.Errorf("C=%s: verdict %q, want %q…", row["concurrency"], row["verdict"], tt.verdict)
				}
			}
			if decodes != 3 {
				t.Errorf("%d decode rows in compare.csv, want 3", decodes)
			}
			formats, _ := chart.ParseFormats(tt.charts)
			for _, name := range []string{chart.CompareDecodeName, chart.CompareTradeoffName} {
				for _, ext := range chart.Formats {
					_, err := os.Stat(filepath.Join(out, name+"."+ext))
					if want := slices.Contains(formats, ext); want && err != nil {
						t.Error(err)
					} else if !want && err == nil {
						t.Errorf("--charts %s wrote %s.%s", tt.charts, name, ext)
					}
				}
			}
			if want := map[string]string{
				"png,svg": "overlay charts compare_decode_tps.{png,svg}, compare_tradeoff.{png,svg} in ",
				"svg":     "overlay charts compare_decode_tps.svg, compare_tradeoff.svg in ",
				"none":    "wrote compare.csv in ",
			}[tt.charts]; !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
		})
	}
}

func TestCompareUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"compare", savedRun}, ExitUsage, "at least two run directories"},
		{[]string{"compare", savedRun, savedRun, "--out", "x"}, ExitUsage, "put flags first"},
		{[]string{"compare", "--resamples", "5", savedRun, savedRun}, ExitUsage, "--resamples"},
		{[]string{"compare", "--resamples", "1000000000", savedRun, savedRun}, ExitUsage, "from 100 to 100000"}, // unbounded before (issue 25, item 9)
		{[]string{"compare", "--confidence", "95", savedRun, savedRun}, ExitUsage, "--confidence"},
		{[]string{"compare", "--min-effect", "-1%", savedRun, savedRun}, ExitUsage, "invalid --min-effect"},
		{[]string{"compare", "--min-effect", "two", savedRun, savedRun}, ExitUsage, "invalid --min-effect"},
		{[]string{"compare", "--charts", "jpg", savedRun, savedRun}, ExitUsage, `invalid --charts "jpg": want png or svg, comma-separated, or none`},
		{[]string{"report", "--charts", "png,", savedRun}, ExitUsage, `invalid --charts "png,": want png or svg, comma-separated, or none`},
		{[]string{"merge", "--charts", "", "x", savedRun}, ExitUsage, `invalid --charts "": want png or svg, comma-separated, or none`},
		{[]string{"sweep", "--charts", "gif", "--sim"}, ExitUsage, `invalid --charts "gif": want png or svg, comma-separated, or none`},
		{[]string{"compare", "--out", "x", savedRun, filepath.Join(savedRun, "missing")}, ExitFailure, "summary.json"},
	}
	for _, tt := range tests {
		code, _, stderr := runCLI(t, context.Background(), tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", tt.args, code, stderr, tt.code, tt.want)
		}
	}
}

func readCompareCSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	return readCSVRows(t, path)
}

func TestWorkloadDiff(t *testing.T) {
	t.Parallel()
	a := &report.RunConfig{URL: "http://a/v1", Model: "m", API: "chat", MaxTokens: 128, PromptSource: "default"}
	b := &report.RunConfig{URL: "http://b/v1", Model: "m", API: "chat", MaxTokens: 2048, PromptSource: "default", Temperature: new(0.0)}
	if got, want := workloadDiff(a, b), "max_tokens 128 vs 2048; temperature null vs 0"; got != want {
		t.Errorf("workloadDiff = %q, want %q (the URL is what an A/B test changes)", got, want)
	}
	c := *a
	c.ExtraBody = map[string]any{"ignore_eos": true}
	if got, want := workloadDiff(a, &c), `extra_body none vs {"ignore_eos":true}`; got != want {
		t.Errorf("workloadDiff = %q, want %q", got, want)
	}
	if got := workloadDiff(a, a); got != "" {
		t.Errorf("identical workloads differ: %q", got)
	}
}

// sweepInto sweeps with the given flags into a fresh directory, without the
// metrics scrape, and returns the directory.
func sweepInto(t *testing.T, args ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	args = append(append([]string{"sweep"}, args...), "--metrics-url", "off", "--out", dir)
	if code, _, stderr := runCLI(t, context.Background(), args...); code != ExitOK {
		t.Fatalf("%v: exit %d\n%s", args, code, stderr)
	}
	return dir
}

// sweepPair runs two sweeps at once (sweepInto's) and returns their run
// directories: a pair compared side by side sees the same machine.
func sweepPair(t *testing.T, a, b []string) (string, string) {
	t.Helper()
	type result struct {
		dir, stderr string
		code        int
		args        []string
	}
	run := func(args []string, into *result) {
		into.dir = filepath.Join(t.TempDir(), "run")
		into.args = append(append([]string{"sweep"}, args...), "--metrics-url", "off", "--out", into.dir)
		into.code, _, into.stderr = runCLI(t, context.Background(), into.args...)
	}
	var ra, rb result
	var wg sync.WaitGroup
	wg.Go(func() { run(a, &ra) })
	run(b, &rb)
	wg.Wait()
	for _, r := range []result{ra, rb} {
		if r.code != ExitOK {
			t.Fatalf("%v: exit %d\n%s", r.args, r.code, r.stderr)
		}
	}
	return ra.dir, rb.dir
}

// compareRuns runs compare with args (flags, then run directories) and
// returns stdout and the decode_tps_p50 rows of compare.csv.
func compareRuns(t *testing.T, args ...string) (string, []map[string]string) {
	t.Helper()
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), append([]string{"compare", "--out", out}, args...)...)
	if code != ExitOK {
		t.Fatalf("compare: exit %d\n%s", code, stderr)
	}
	var decode []map[string]string
	for _, row := range readCompareCSV(t, filepath.Join(out, CompareFile)) {
		if row["metric"] == "decode_tps_p50" {
			decode = append(decode, row)
		}
	}
	if len(decode) == 0 {
		t.Fatalf("compare.csv has no decode row\n%s", stdout)
	}
	return stdout, decode
}

// TestCompareIdenticalSimRuns: two `sweep --sim` runs of the same
// simulator, side by side, are no difference, whether each side ran once (the
// bootstrap sees only request-to-request noise, so the floor decides and
// the output says run-to-run noise was not measured) or twice (the
// interval is between runs). On a starved machine one pair of runs may
// really differ, so a failing pair is run once more.
func TestCompareIdenticalSimRuns(t *testing.T) {
	t.Parallel()
	sim := []string{"--sim", "--levels", "2", "--requests", "8", "--max-tokens", "64"}
	tests := []struct {
		name     string
		repeat   string
		interval string // the interval column of every decode row
		say      string // in stdout
	}{
		{"one run a side", "1", "requests", "run-to-run noise was not measured"},
		{"two runs a side", "2", "repeats", "run-to-run noise is included"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var problems []string
			for attempt := 1; attempt <= 2; attempt++ {
				a, b := sweepPair(t, append(sim, "--repeat", tt.repeat), append(sim, "--repeat", tt.repeat))
				stdout, rows := compareRuns(t, a, b)
				problems = nil
				if !strings.Contains(stdout, tt.say) {
					problems = append(problems, "stdout does not say "+tt.say)
				}
				for _, row := range rows {
					if row["interval"] != tt.interval || !strings.HasPrefix(row["verdict"], "no ") || row["meaningful"] != "false" {
						problems = append(problems, fmt.Sprintf("C=%s: %s interval, verdict %q; want %s and no difference",
							row["concurrency"], row["interval"], row["verdict"], tt.interval))
					}
				}
				if len(problems) == 0 {
					t.Logf("attempt %d: %s", attempt, rows[0]["verdict"])
					return
				}
				t.Logf("attempt %d: %s\n%s", attempt, strings.Join(problems, "; "), stdout)
			}
			t.Error(strings.Join(problems, "; "))
		})
	}
}

// TestCompareSlowerSim: a simulator whose decode step is 5% longer is
// called slower with --repeat 3 on both sides (the interval between the
// repetitions), and the reverse comparison faster. The simulator's send
// stamps are the truth. The runs retimed by those stamps must give the
// verdicts and the stamps' ratio within 1%, provided the simulator kept
// its schedule: on a starved machine its steps run late and its requests
// spread, so such a pair is run once more, and if the second is starved
// too only the direction is checked. The runs as the client measured them
// also carry its own scheduling delays: they must never point the wrong
// way.
func TestCompareSlowerSim(t *testing.T) {
	t.Parallel()
	const step = 4 * time.Millisecond
	slow := time.Duration(1.05 * float64(step))
	want := float64(step) / float64(slow)
	flags := []string{"--levels", "2", "--requests", "12", "--max-tokens", "64", "--repeat", "3"}
	for attempt := 1; attempt <= 2; attempt++ {
		fast, slowDir := sweepPair(t, append([]string{"--url", steadySim(t, nil)}, flags...),
			append([]string{"--url", steadySim(t, func(c *sim.Config) { c.DecodeBase = slow })}, flags...))
		rf, rs := stampedRates(t, fast), stampedRates(t, slowDir)
		truth := report.Percentile(rs, 50) / report.Percentile(rf, 50)
		kept := onSchedule(rf, 1/step.Seconds()) && onSchedule(rs, 1/slow.Seconds())
		t.Logf("stamped rates p10/p50/p90: A %.1f/%.1f/%.1f (configured %.1f), B %.1f/%.1f/%.1f (%.1f)", report.Percentile(rf, 10), report.Percentile(rf, 50), report.Percentile(rf, 90), 1/step.Seconds(), report.Percentile(rs, 10), report.Percentile(rs, 50), report.Percentile(rs, 90), 1/slow.Seconds())
		sa, sb := stampedCopy(t, fast), stampedCopy(t, slowDir)
		_, rows := compareRuns(t, sa, sb)
		_, reverse := compareRuns(t, sb, sa)
		_, raw := compareRuns(t, fast, slowDir)
		t.Logf("attempt %d: on schedule %v, stamps B/A %.4f; retimed: %s; reversed: %s; as measured: %s",
			attempt, kept, truth, rows[0]["verdict"], reverse[0]["verdict"], raw[0]["verdict"])
		for _, v := range []string{rows[0]["verdict"], raw[0]["verdict"]} {
			if strings.Contains(v, "faster") {
				t.Errorf("verdict %q points the wrong way", v)
			}
		}
		if strings.Contains(reverse[0]["verdict"], "slower") {
			t.Errorf("reversed: verdict %q points the wrong way", reverse[0]["verdict"])
		}
		if !kept {
			t.Logf("attempt %d: the simulator fell behind its schedule (a starved machine): direction checked only", attempt)
			continue
		}
		if !within(truth, want, 0.015) {
			t.Errorf("on schedule, yet the stamps show B/A = %.4f, want 1/1.05 = %.4f", truth, want)
		}
		checkVerdict(t, "retimed by the stamps", rows[0], "slower", truth, 0.01)
		checkVerdict(t, "retimed, reversed", reverse[0], "faster", 1/truth, 0.01)
		// A floor above the difference makes it no meaningful difference.
		if _, rows := compareRuns(t, "--min-effect", "10%", sa, sb); !strings.HasPrefix(rows[0]["verdict"], "no meaningful difference") {
			t.Errorf("--min-effect 10%%: verdict %q, want no meaningful difference", rows[0]["verdict"])
		}
		return
	}
}

// onSchedule reports whether a run's stamped decode rates (sorted) kept to
// the simulator's configured rate: p10 and p90 within 5% of it (under
// load, late steps slow some requests and catching up speeds others).
func onSchedule(rates []float64, rate float64) bool {
	return within(report.Percentile(rates, 10), rate, 0.05) && within(report.Percentile(rates, 90), rate, 0.05)
}

// checkVerdict checks a decode row of compare.csv: a meaningful difference
// in direction word, with the ratio within tol of want.
func checkVerdict(t *testing.T, what string, row map[string]string, word string, want, tol float64) {
	t.Helper()
	ratio, err := strconv.ParseFloat(row["ratio"], 64)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(row["verdict"], "B is ") || !strings.Contains(row["verdict"], "% "+word) || row["meaningful"] != "true" {
		t.Errorf("%s: verdict %q, want B is …%% %s", what, row["verdict"], word)
	}
	if math.Abs(ratio-want) > tol {
		t.Errorf("%s: B/A %.4f, want %.4f ± %v", what, ratio, want, tol)
	}
}

// stampedRates are, sorted, the decode rates of a run's successful
// measured requests by the simulator's own send stamps: (chunks − 1) over
// the time between the first and the last chunk's sending (one token per
// chunk).
func stampedRates(t *testing.T, dir string) []float64 {
	t.Helper()
	var rates []float64
	for _, r := range readRecords(t, dir) {
		n := len(r.ChunkAt)
		if r.Warmup || !r.OK() || n < 2 || len(r.SendLag) != n {
			continue
		}
		sent := func(i int) time.Duration { return r.ChunkAt[i] - r.SendLag[i] }
		rates = append(rates, float64(n-1)/(sent(n-1)-sent(0)).Seconds())
	}
	if len(rates) == 0 {
		t.Fatalf("%s: no request with send stamps", dir)
	}
	slices.Sort(rates)
	return rates
}
