package replay

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
	"github.com/toksweep/toksweep/workload/trace"
)

// bailian is a 4-request trace with one two-turn conversation (chat 10,
// then 12), 0.5 to 3 s in.
const bailian = "../../workload/trace/testdata/bailian.jsonl"

// line binds the replay's flags into l (nil: a fresh Line), runs args
// through a real urfave/cli command and then the mode's Parse, as app does.
func line(t *testing.T, l *mode.Line, args ...string) (*mode.Line, error) {
	t.Helper()
	if l == nil {
		l = &mode.Line{}
	}
	app := &cli.App{Name: "t", HideHelp: true, Flags: Mode{}.Flags(l), Action: func(*cli.Context) error { return nil }}
	if err := app.Run(append([]string{"t"}, args...)); err != nil {
		t.Fatalf("flags %q: %v", args, err)
	}
	return l, Mode{}.Parse(l)
}

func TestParse(t *testing.T) {
	t.Parallel()
	m := Mode{}
	l, err := line(t, nil, "--trace", bailian, "--replay-speed", "1,2")
	if err != nil {
		t.Fatal(err)
	}
	r := Of(l)
	if !m.Given(l) || !m.Chosen(l) || m.Searched(l) || m.Levels(l) != 2 || m.Check(l) != nil || r.sum.Requests != 4 {
		t.Errorf("given, chosen, searched, levels, check or the trace: %+v", r.sum)
	}
	if got := m.Text(l); !strings.HasPrefix(got, "with trace "+bailian+" at speeds 1× (") || !strings.Contains(got, "2× (") {
		t.Errorf("Text %q", got)
	}
	if !strings.HasPrefix(m.PromptsFrom(l), "--trace: ") {
		t.Errorf("PromptsFrom %q", m.PromptsFrom(l))
	}
	l.Cap = 5
	var rc report.RunConfig
	var sum report.Summary
	m.Record(l, &rc)
	m.Summary(l, &sum)
	if rc.OpenLoop == nil || len(rc.OpenLoop.Rates) != 2 || rc.OpenLoop.Arrival != "trace" || rc.OpenLoop.MaxConcurrency != 5 || sum.Trace == nil || sum.ReplaySalt == nil || *sum.ReplaySalt != r.salt {
		t.Errorf("config %+v, summary %+v", rc.OpenLoop, sum)
	}
	if m.Conns(l) != 5 || m.Streams(l) != 0 {
		t.Error("conns or streams")
	}
	l, err = line(t, nil, "--trace", bailian, "--replay-speed", "auto")
	if err != nil || !m.Searched(l) || !strings.Contains(m.Text(l), "at speed auto (1 = ") {
		t.Errorf("auto: %v %q", err, m.Text(l))
	}
	l, _ = line(t, nil)
	if m.Given(l) || m.Chosen(l) || m.PromptsFrom(l) != "" {
		t.Error("no trace: given, chosen or owns the prompts")
	}
}

// Each run draws its own salt; with --seed it is the seed's.
func TestSalt(t *testing.T) {
	t.Parallel()
	a, _ := line(t, nil, "--trace", bailian)
	b, _ := line(t, nil, "--trace", bailian)
	if Of(a).salt == Of(b).salt {
		t.Errorf("two runs drew salt %d", Of(a).salt)
	}
	c, _ := line(t, &mode.Line{Seed: 3, SeedSet: true}, "--trace", bailian)
	d, _ := line(t, &mode.Line{Seed: 3, SeedSet: true}, "--trace", bailian)
	e, _ := line(t, &mode.Line{Seed: 4, SeedSet: true}, "--trace", bailian)
	if Of(c).salt != Of(d).salt || Of(c).salt == Of(e).salt {
		t.Errorf("--seed 3 twice: %d, %d; --seed 4: %d", Of(c).salt, Of(d).salt, Of(e).salt)
	}
	if LevelSalt(1, 2, 0) == LevelSalt(2, 2, 0) || LevelSalt(1, 2, 0) == LevelSalt(1, 2, 1) || LevelSalt(1, 2, 0) == LevelSalt(1, 4, 0) {
		t.Error("two levels or two runs share a salt")
	}
}

func TestParseRefuses(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		l    *mode.Line
		args []string
		want string
	}{
		{nil, []string{"--prompt-token-ids"}, "apply to a trace replay: give --trace FILE"},
		{nil, []string{"--trace", bailian, "--prompt-token-ids"}, "needs --api completions"},
		{&mode.Line{API: client.Completions}, []string{"--trace", bailian, "--prompt-token-ids", "--vocab-size", "10"}, "invalid --vocab-size 10"},
		{nil, []string{"--trace", bailian, "--trace-format", "csv"}, "invalid --trace-format"},
		{nil, []string{"--trace", bailian, "--trace-window", "x"}, "trace-window"},
		{nil, []string{"--trace", "none.jsonl"}, "--trace: "},
		{nil, []string{"--trace", bailian, "--replay-speed", "0"}, `"0" is not a speed`},
		{nil, []string{"--trace", bailian, "--replay-speed", "2,1"}, "increasing order"},
		{nil, []string{"--trace", bailian, "--replay-speed", "1e9"}, "over the 10000 req/s bound: this trace's highest speed is"},
	} {
		if _, err := line(t, tt.l, tt.args...); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.args, err, tt.want)
		}
	}
}

// The highest speed is the rate bound over the trace's mean rate or its
// busiest second, whichever is higher.
func TestMaxSpeed(t *testing.T) {
	t.Parallel()
	if got := MaxSpeed(trace.Summary{MeanRate: 0.01, PeakRate1s: 2}); got != 5000 {
		t.Errorf("sparse trace: %g, want 5000 (its busiest second)", got)
	}
	if got := MaxSpeed(trace.Summary{MeanRate: 20, PeakRate1s: 10}); got != 500 {
		t.Errorf("dense trace: %g, want 500 (its mean rate)", got)
	}
}

// tokenServer answers every completion with usage.prompt_tokens: 2 per
// word plus 5, one token out.
func tokenServer(t *testing.T) *client.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b bytes.Buffer
		b.ReadFrom(r.Body)
		words := strings.Count(b.String(), " ")
		w.Header().Set("Content-Type", "text/event-stream")
		io := `data: {"choices":[{"index":0,"text":"x","finish_reason":"length"}],"usage":{"prompt_tokens":` + strconv.Itoa(2*words+5) + `,"completion_tokens":1}}` + "\n\ndata: [DONE]\n\n"
		w.Write([]byte(io))
	}))
	t.Cleanup(srv.Close)
	cl, err := client.New(client.Config{BaseURL: srv.URL + "/v1", Model: "m", API: client.Completions, RequestTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// Start measures the server's tokens per word, builds the trace with its
// conversation as a session of two turns, and the Load at the speeds,
// the cap and the run's salt; auto gives the speed search.
func TestStart(t *testing.T) {
	t.Parallel()
	l, err := line(t, &mode.Line{Cap: 3, API: client.Completions}, "--trace", bailian, "--replay-speed", "1,2")
	if err != nil {
		t.Fatal(err)
	}
	var cfg sweep.Config
	var stderr bytes.Buffer
	run := Mode{}.Start(context.Background(), mode.Start{Line: l, Client: tokenServer(t), Stderr: &stderr}, &cfg)
	ld, ok := cfg.Load.(*Load)
	if !ok || len(ld.Speeds) != 2 || ld.Cap != 3 || ld.Salt != Of(l).salt || ld.Mode() != Name || run.Search != nil {
		t.Fatalf("load %+v", cfg.Load)
	}
	if r := Of(l); r.tpw != 2 || !strings.Contains(stderr.String(), "the server counts 2.000 tokens per filler word") {
		t.Errorf("tokens per word %g: %s", r.tpw, stderr.String())
	}
	rq := ld.Trace.Requests
	if len(rq) != 4 || rq[0].Session != 1 || rq[0].Turn != 1 || rq[2].Parent != 0 || rq[2].Session != 1 || rq[2].Turn != 2 || rq[1].Session != 0 {
		t.Errorf("requests %+v", rq)
	}
	if p := ld.Trace.Prompt(0, nil, 7); p.MaxTokens != 8 {
		t.Errorf("first prompt's max_tokens %d, want the trace's 8", p.MaxTokens)
	}
	if n := ld.Measured(&sweep.Config{Warmup: 1, Requests: 2}, sweep.LevelKey{}); n != 2 {
		t.Errorf("measured %d, want 2", n)
	}
	if _, err := ld.Arrivals(nil, sweep.LevelKey{Mode: Name, Load: 1}, 4, 0); err != nil {
		t.Error(err)
	}
	if _, err := (&Load{}).Arrivals(nil, sweep.LevelKey{Mode: Name}, 4, 0); err == nil {
		t.Error("a level without a speed has arrivals")
	}
	if ld.WarmConns(sweep.LevelKey{}) != 64 || ld.WarmConns(sweep.LevelKey{Concurrency: 3}) != 3 || ld.AbortAfter(sweep.LevelKey{}) != 8 {
		t.Error("warm connections or abort count")
	}
	var out bytes.Buffer
	if err := run.Preface(&out); err != nil || !strings.HasPrefix(out.String(), "trace "+bailian+" (bailian") {
		t.Errorf("preface %q (%v)", out.String(), err)
	}

	l, _ = line(t, &mode.Line{API: client.Completions}, "--trace", bailian, "--replay-speed", "auto", "--prompt-token-ids")
	var stats []report.LevelStats
	run = Mode{}.Start(context.Background(), mode.Start{Line: l, Client: tokenServer(t), Stderr: &stderr, Stats: &stats}, &cfg)
	if ld := cfg.Load.(*Load); run.Search == nil || ld.Chooser == nil {
		t.Error("auto: no search")
	}
}

// The level line's note: length errors against the trace, and the
// server's prefix hits beside the trace's best possible.
func TestLengthNote(t *testing.T) {
	t.Parallel()
	r := &Settings{File: "t.jsonl", sum: trace.Summary{HasHashes: true, PrefixReuse: 0.5}}
	s := report.LevelStats{}
	s.InputLengthError.N, s.OutputLengthError.N = 3, 3
	s.Server.Scraped, s.Server.PrefixHitRate = true, 0.25
	got := r.lengthNote(s)
	if !strings.Contains(got, "lengths against the trace: input error mean +0.0% p99 0.0% (3 requests)") || !strings.Contains(got, "prefix hits: the server's 25.0%, the trace's best possible 50.0%") {
		t.Errorf("note %q", got)
	}
	if (&Settings{}).lengthNote(s) != "" {
		t.Error("no trace: a note")
	}
}

// The replay's engine side and words.
func TestModeWords(t *testing.T) {
	t.Parallel()
	m := Mode{}
	if m.Name() != Name || !m.Open() || !m.Marks() || m.RunsSessions() || m.HelpOrder() != 3 || m.Category() != "trace replay" || m.FlagsBefore() != nil {
		t.Error("open, marked, no sessions, help order")
	}
	k, capped := sweep.LevelKey{Mode: Name, Load: 2}, sweep.LevelKey{Mode: Name, Load: 0.5, Concurrency: 8}
	w := m.Words()
	if w.Name(k) != "speed=2×" || w.Name(capped) != "speed=0.5× C≤8" || w.At(k) != "replay speed 2×" || w.Head != "speed×" {
		t.Errorf("words %q %q %q", w.Name(k), w.Name(capped), w.At(k))
	}
	if w.Load(k, 24.3, "open loop") != "speed 2× (offered 24.3 req/s, open loop)" || w.Load(k, 0, "") != "speed 2×" || w.Offered(k, 2.4) != "offered 2.4 req/s" || w.Offered(k, 0) != "" {
		t.Errorf("Load %q, Offered %q", w.Load(k, 24.3, "open loop"), w.Offered(k, 2.4))
	}
	if !m.Unbounded(k) || m.Unbounded(capped) {
		t.Error("unbounded")
	}
	l := &sweep.Level{Records: []client.Record{{Mode: Name}}}
	if !m.Claims(l) || m.Claims(&sweep.Level{}) || m.Claims(&sweep.Level{Records: []client.Record{{}}}) {
		t.Error("claims")
	}
	if _, ok := m.Estimate(&mode.Line{}).(Estimate); !ok {
		t.Error("estimate")
	}
}
