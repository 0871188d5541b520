package live

import (
	"bytes"
	"context"
	"io"
	"math"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/sweep"
)

const ms = time.Millisecond

// stubDoer returns its records in turn, after holding each request until
// release is closed (so that the test sees it in flight).
type stubDoer struct {
	recs    chan client.Record
	release chan struct{}
}

func (d *stubDoer) Do(ctx context.Context, _ client.Prompt) client.Record {
	<-d.release
	return <-d.recs
}
func (d *stubDoer) Now() time.Duration { return 0 }

// handMade are one level's records at C=2: two successes with known timing
// (4 tokens in 4 chunks: TTFT 100 and 300 ms), a 5xx, and a warm-up.
func handMade() []client.Record {
	ok := func(start, ttft time.Duration) client.Record {
		return client.Record{Concurrency: 2, Start: start, FirstToken: start + ttft, LastToken: start + ttft + 30*ms, End: start + ttft + 40*ms,
			ChunkAt: []time.Duration{ttft, ttft + 10*ms, ttft + 20*ms, ttft + 30*ms}, HasUsage: true, CompletionTokens: 4, PromptTokens: 7}
	}
	return []client.Record{
		ok(time.Second, 100*ms),
		ok(2*time.Second, 300*ms),
		{Concurrency: 2, Start: 3 * time.Second, End: 3*time.Second + 5*ms, Status: 500, ErrorClass: client.HTTP5xx, Error: "boom"},
		{Concurrency: 2, Warmup: true, Start: 0, FirstToken: 50 * ms, End: 60 * ms, ChunkAt: []time.Duration{50 * ms}},
	}
}

func scrape(t *testing.T, addr string) (string, map[string]*dto.MetricFamily) {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the endpoint's output does not parse: %v\n%s", err, b)
	}
	return string(b), fams
}

// one returns the family's only metric, after checking its labels.
func one(t *testing.T, fams map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	t.Helper()
	f := fams[name]
	if f == nil {
		t.Fatalf("no family %s", name)
	}
	for _, m := range f.Metric {
		got := map[string]string{}
		for _, l := range m.Label {
			got[l.GetName()] = l.GetValue()
		}
		match := true
		for k, v := range want {
			match = match && got[k] == v
		}
		if match && len(got) == len(want) {
			return m
		}
	}
	t.Fatalf("%s: no metric labelled exactly %v in %v", name, want, f.Metric)
	return nil
}

// TestEndpoint: hand-made records through the hooks give the exact
// counts, sums and gauges, each with the run's labels and no others.
func TestEndpoint(t *testing.T) {
	m := New(Labels{RunID: "run-1", Shard: "0/1", Model: "m"}, func() float64 { return 0.25 })
	srv, err := serve(t, m)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close(false)
	addr := srv.Addr().String()

	_, fams := scrape(t, addr)
	if fams["toksweep_in_flight"] != nil {
		t.Error("level gauges before any level started")
	}
	m.LevelStarted(sweep.Level{Concurrency: 2}, 0)
	recs := handMade()
	stub := &stubDoer{recs: make(chan client.Record, len(recs)), release: make(chan struct{})}
	for _, r := range recs {
		stub.recs <- r
	}
	d := m.Doer(stub)
	back := make(chan client.Record)
	for range recs {
		go func() { back <- d.Do(context.Background(), client.Prompt{}) }()
	}
	deadline := time.Now().Add(10 * time.Second)
	for m.inFlight.Load() != 4 && time.Now().Before(deadline) {
		time.Sleep(ms)
	}
	lvl := map[string]string{"run_id": "run-1", "shard": "0/1", "model": "m", "mode": "closed", "level": "C=2"}
	_, fams = scrape(t, addr)
	if g := one(t, fams, "toksweep_in_flight", lvl).GetGauge().GetValue(); g != 4 {
		t.Errorf("in flight %v, want 4", g)
	}
	close(stub.release)
	for range recs {
		r := <-back
		m.RequestDone(&r)
	}
	m.TimerLate(7 * ms)
	m.TimerLate(3 * ms)

	text, fams := scrape(t, addr)
	run := map[string]string{"run_id": "run-1", "shard": "0/1", "model": "m"}
	ttft := one(t, fams, "toksweep_ttft_seconds", lvl).GetHistogram()
	if ttft.GetSampleCount() != 2 || math.Abs(ttft.GetSampleSum()-0.4) > 1e-9 {
		t.Errorf("ttft count %d sum %v, want 2 and 0.4 (warm-up and failure left out)", ttft.GetSampleCount(), ttft.GetSampleSum())
	}
	// TPOT = (End − FirstToken)/(U − 1) = 40 ms / 3; ITL: 3 gaps of 10 ms each.
	if tp := one(t, fams, "toksweep_tpot_seconds", lvl).GetHistogram(); tp.GetSampleCount() != 2 || math.Abs(tp.GetSampleSum()-2*0.040/3) > 1e-9 {
		t.Errorf("tpot count %d sum %v, want 2 and %v", tp.GetSampleCount(), tp.GetSampleSum(), 2*0.040/3)
	}
	if itl := one(t, fams, "toksweep_itl_seconds", lvl).GetHistogram(); itl.GetSampleCount() != 6 || math.Abs(itl.GetSampleSum()-0.060) > 1e-9 {
		t.Errorf("itl count %d sum %v, want 6 and 0.06", itl.GetSampleCount(), itl.GetSampleSum())
	}
	if e2e := one(t, fams, "toksweep_e2e_latency_seconds", lvl).GetHistogram(); e2e.GetSampleCount() != 2 || math.Abs(e2e.GetSampleSum()-(0.140+0.340)) > 1e-9 {
		t.Errorf("e2e count %d sum %v, want 2 and 0.48", e2e.GetSampleCount(), e2e.GetSampleSum())
	}
	withOutcome := func(o string) map[string]string {
		l := map[string]string{"outcome": o}
		for k, v := range lvl {
			l[k] = v
		}
		return l
	}
	counts := map[string]float64{"ok": 2, "http_5xx": 1}
	for o, want := range counts {
		if got := one(t, fams, "toksweep_requests_total", withOutcome(o)).GetCounter().GetValue(); got != want {
			t.Errorf("requests_total{outcome=%q} %v, want %v", o, got, want)
		}
	}
	for name, want := range map[string]float64{"toksweep_output_tokens_total": 8, "toksweep_input_tokens_total": 14} {
		if got := one(t, fams, name, lvl).GetCounter().GetValue(); got != want {
			t.Errorf("%s %v, want %v", name, got, want)
		}
	}
	gauges := map[string]float64{"toksweep_in_flight": 0, "toksweep_level_key": 2, "toksweep_dispatch_delay_max_seconds": 0, "toksweep_timer_late_max_seconds": 0.007}
	for name, want := range gauges {
		if got := one(t, fams, name, lvl).GetGauge().GetValue(); got != want {
			t.Errorf("%s %v, want %v", name, got, want)
		}
	}
	if g := one(t, fams, "toksweep_offered_rps", lvl).GetGauge().GetValue(); !(g > 0) {
		t.Errorf("offered rps %v, want > 0 after 4 requests", g)
	}
	if g := one(t, fams, "toksweep_run_done_ratio", run).GetGauge().GetValue(); g != 0.25 {
		t.Errorf("run done %v, want 0.25", g)
	}
	one(t, fams, "toksweep_client_cpu_seconds_total", run)
	one(t, fams, "toksweep_client_cpu_cores", run)
	if strings.Contains(text, "boom") {
		t.Error("a request's error text is on the endpoint")
	}

	// An open-loop level: mode rate, the key is λ, and the dispatch delay
	// Start − Sched of its measured requests.
	m.LevelStarted(sweep.Level{Rate: 2.5}, 0)
	r := client.Record{Rate: 2.5, Sched: time.Second, Start: time.Second + 4*ms, End: 2 * time.Second, ErrorClass: client.Timeout}
	m.RequestDone(&r)
	_, fams = scrape(t, addr)
	open := map[string]string{"run_id": "run-1", "shard": "0/1", "model": "m", "mode": "rate", "level": "rate=2.5/s"}
	if g := one(t, fams, "toksweep_level_key", open).GetGauge().GetValue(); g != 2.5 {
		t.Errorf("open-loop key %v, want 2.5", g)
	}
	if g := one(t, fams, "toksweep_dispatch_delay_max_seconds", open).GetGauge().GetValue(); g != 0.004 {
		t.Errorf("dispatch delay max %v, want 0.004", g)
	}
	if n := len(fams["toksweep_level_key"].Metric); n != 1 {
		t.Errorf("%d level_key series, want 1: the finished level's gauges end with it", n)
	}
}

// TestPromtoolCheckMetrics: Prometheus's own linter finds nothing wrong
// with the endpoint's output.
func TestPromtoolCheckMetrics(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed (Debian/Ubuntu: apt-get install prometheus; .ci/run installs it)")
	}
	m := New(Labels{RunID: "r", Shard: "0/1", Model: "m"}, func() float64 { return 0.5 })
	m.LevelStarted(sweep.Level{Concurrency: 2}, 0)
	for _, r := range handMade() {
		m.RequestDone(&r)
	}
	srv, err := serve(t, m)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close(false)
	text, _ := scrape(t, srv.Addr().String())
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(text)
	if out, err := cmd.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

func TestListenAddr(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{":9464": "127.0.0.1:9464", "0.0.0.0:9464": "0.0.0.0:9464", "[::1]:1": "[::1]:1"} {
		if got := ListenAddr(in); got != want {
			t.Errorf("ListenAddr(%q) = %q, want %q", in, got, want)
		}
	}
}

// serve serves m's /metrics on a port of 127.0.0.1 until Close.
func serve(t *testing.T, m *Metrics) (*Server, error) {
	t.Helper()
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	return ServeOn(ln, m), nil
}
