package app

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/toksweep/toksweep/internal/testkit/rawserver"
)

// scrapeDuring runs the sweep args (plus --listen) and scrapes its
// endpoint every 50 ms until the sweep returns; it returns the exit status,
// stderr and every scrape's text.
func scrapeDuring(t *testing.T, args ...string) (code int, stderr string, scrapes []string) {
	t.Helper()
	addr := rawserver.Free(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		code, _, stderr = runCLI(t, context.Background(), append(args, "--listen", addr)...)
	}()
	for {
		select {
		case <-done:
			return code, stderr, scrapes
		case <-time.After(50 * time.Millisecond):
		}
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			continue // not up yet, or already closed
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		scrapes = append(scrapes, string(b))
	}
}

func parseScrape(t *testing.T, text string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("the endpoint's output does not parse: %v", err)
	}
	return fams
}

// liveFamilies are the families the endpoint exports during a level, with
// whether each carries the level's labels (mode, level).
var liveFamilies = map[string]bool{
	"toksweep_ttft_seconds": true, "toksweep_tpot_seconds": true, "toksweep_itl_seconds": true, "toksweep_e2e_latency_seconds": true,
	"toksweep_requests_total": true, "toksweep_input_tokens_total": true, "toksweep_output_tokens_total": true,
	"toksweep_in_flight": true, "toksweep_level_key": true, "toksweep_offered_rps": true, "toksweep_achieved_rps": true,
	"toksweep_dispatch_delay_max_seconds": true, "toksweep_timer_late_max_seconds": true,
	"toksweep_client_cpu_seconds_total": false, "toksweep_client_cpu_cores": false, "toksweep_run_done_ratio": false,
}

// holdsAll reports whether fams holds every family named in names.
func holdsAll(fams map[string]*dto.MetricFamily, names map[string]bool) bool {
	for name := range names {
		if fams[name] == nil {
			return false
		}
	}
	return true
}

// TestListenDuringSweep scrapes the endpoint while a sweep runs: every
// family is there with the run's labels, the last scrape's TTFT count and
// output-token counter equal levels.csv's, and no planted secret (key,
// header, URL password) is in any scrape.
func TestListenDuringSweep(t *testing.T) {
	t.Parallel()
	p := startPaced(t, 10*time.Millisecond, 5*time.Millisecond, 4, func(p *pacedServer) { p.apiKey = plantedKey })
	url := strings.Replace(p.url(), "://", "://user:"+plantedURLPw+"@", 1)
	out := filepath.Join(t.TempDir(), "run-live")
	code, stderr, scrapes := scrapeDuring(t, "sweep", "--url", url, "--levels", "1,2", "--requests", "40", "--out", out,
		"--api-key", plantedKey, "--header", "X-Api-Key: "+plantedHeader)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	assertNoSecrets(t, strings.Join(scrapes, "\n"), "", "")
	// The first scrape during a level that holds every family: a request's
	// histograms are observed one after another at its end, and a scrape
	// can land between them. If none does, the last one during a level is
	// judged, and its missing families reported.
	var during map[string]*dto.MetricFamily
	for _, s := range scrapes {
		f := parseScrape(t, s)
		if f["toksweep_in_flight"] == nil {
			continue
		}
		during = f
		if holdsAll(f, liveFamilies) {
			break
		}
	}
	if during == nil {
		t.Fatalf("none of %d scrapes came during a level", len(scrapes))
	}
	for name, perLevel := range liveFamilies {
		f := during[name]
		if f == nil {
			t.Errorf("no family %s", name)
			continue
		}
		for _, m := range f.Metric {
			got := map[string]string{}
			for _, l := range m.Label {
				got[l.GetName()] = l.GetValue()
			}
			if got["run_id"] != "run-live" || got["shard"] != "0/1" || got["model"] != "paced" {
				t.Errorf("%s labels %v: want run_id run-live, shard 0/1, model paced", name, got)
			}
			if lv := got["level"]; perLevel && (got["mode"] != "closed" || (lv != "C=1" && lv != "C=2")) {
				t.Errorf("%s labels %v: want mode closed and level C=1 or C=2", name, got)
			}
		}
	}

	// The last scrape came after the run (Close waits for it): its sums
	// are the run's.
	last := parseScrape(t, scrapes[len(scrapes)-1])
	var ttft, tokens float64
	for _, m := range last["toksweep_ttft_seconds"].GetMetric() {
		ttft += float64(m.GetHistogram().GetSampleCount())
	}
	for _, m := range last["toksweep_output_tokens_total"].GetMetric() {
		tokens += m.GetCounter().GetValue()
	}
	var ok int
	for _, row := range readLevels(t, out) {
		n, _ := strconv.Atoi(row["requests_ok"])
		ok += n
	}
	if ok != 80 || ttft != float64(ok) || tokens != float64(4*ok) {
		t.Errorf("last scrape: TTFT count %v, output tokens %v; levels.csv: %d ok (want 80, 4 tokens each)", ttft, tokens, ok)
	}
}

func TestListenRefusesBadAddress(t *testing.T) {
	t.Parallel()
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--sim", "--listen", "nonsense", "--out", t.TempDir())
	if code != ExitUsage || !strings.Contains(stderr, "invalid --listen") {
		t.Errorf("exit %d, %q; want 2 and invalid --listen", code, stderr)
	}
}

// TestFailOnSLO: against a server that fails a quarter to a half of the
// requests from the second level on, --slo-error-rate 0.1 passes C=1 and
// fails C=2 and C=4. Without a gate the exit is 0; --fail-on-slo runs
// every level and exits 3 naming C=2 on the last line; --abort-on-slo-fail
// stops at C=2. A healthy server passes the gate with exit 0.
func TestFailOnSLO(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		flags  []string
		faulty bool
		code   int
		levels int
		end    string
	}{
		{"passing", []string{"--fail-on-slo"}, false, ExitOK, 3, "completed"},
		{"no gate", nil, true, ExitOK, 3, "completed"},
		{"failing", []string{"--fail-on-slo"}, true, ExitSLOFailed, 3, "completed"},
		{"abort", []string{"--abort-on-slo-fail"}, true, ExitSLOFailed, 2, "aborted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := startPaced(t, 5*time.Millisecond, 2*time.Millisecond, 3, func(p *pacedServer) {
				if tc.faulty { // the pre-flight and level 1 are the first 9 or so
					p.fail = statusWhen(500, func(n int64) bool { return n > 12 && n%2 == 0 })
				}
			})
			out := t.TempDir()
			args := append([]string{"sweep", "--url", p.url(), "--levels", "1,2,4", "--requests", "8", "--slo-error-rate", "0.1", "--out", out}, tc.flags...)
			code, _, stderr := runCLI(t, context.Background(), args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, stderr)
			}
			rows := readLevels(t, out)
			if len(rows) != tc.levels {
				t.Errorf("levels.csv has %d levels, want %d", len(rows), tc.levels)
			}
			var sum struct {
				EndReason string `json:"end_reason"`
				Finished  string `json:"finished"`
			}
			readJSON(t, filepath.Join(out, "summary.json"), &sum)
			if sum.EndReason != tc.end || sum.Finished == "" {
				t.Errorf("summary.json end_reason %q, finished %q; want %q and a finish time", sum.EndReason, sum.Finished, tc.end)
			}
			if tc.code == ExitSLOFailed {
				if l := lastLine(stderr); !strings.Contains(l, "SLO failed: first at level C=2 ") {
					t.Errorf("last line %q does not name level C=2", l)
				}
				if b, err := os.ReadFile(filepath.Join(out, "report.html")); err != nil || !bytes.Contains(b, []byte("C=2")) {
					t.Errorf("report.html was not written in full: %v", err)
				}
			}
		})
	}
}

func TestFailOnSLONeedsObjective(t *testing.T) {
	t.Parallel()
	for _, flags := range [][]string{{"--fail-on-slo"}, {"--abort-on-slo-fail"}, {"--fail-on-slo", "--slo-ttft-p95", "1s", "--levels", "auto"}} {
		code, _, stderr := runCLI(t, context.Background(), append([]string{"sweep", "--sim", "--out", t.TempDir()}, flags...)...)
		if code != ExitUsage || !strings.Contains(stderr, "--fail-on-slo") {
			t.Errorf("%v: exit %d, %q; want 2 naming --fail-on-slo", flags, code, stderr)
		}
	}
}

// TestListenPortInUse: a --listen port that is taken is a one-line error
// before anything else: no run directory is made.
func TestListenPortInUse(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	out := filepath.Join(t.TempDir(), "run")
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--sim", "--levels", "1", "--requests", "2", "--listen", ln.Addr().String(), "--out", out)
	if code != ExitFailure || !strings.Contains(lastLine(stderr), "--listen "+ln.Addr().String()) {
		t.Errorf("exit %d, last line %q; want 1 naming --listen", code, lastLine(stderr))
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("--out exists after the failed --listen: %v", err)
	}
}
