package rate

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/rundir"
	"github.com/toksweep/toksweep/sweep"
)

// line binds the rate mode's flags into a fresh Line, runs args through a
// real urfave/cli command and then the mode's Parse, as app does.
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
	l, err := line(t, &mode.Line{Seed: 5}, "--rates", "4,1,4", "--arrival", "gamma", "--burstiness", "0.5")
	if err != nil {
		t.Fatal(err)
	}
	s := Of(l)
	if !slices.Equal(s.Rates, []float64{1, 4}) || s.Spec != (sweep.RateSpec{Arrival: sweep.Gamma, Burstiness: 0.5, Seed: 5}) {
		t.Errorf("rates %v spec %+v", s.Rates, s.Spec)
	}
	if len(l.Warnings) != 1 || l.Warnings[0] != `--rates "4,1,4" sorted and de-duplicated to 1,4` {
		t.Errorf("warnings %q", l.Warnings)
	}
	m := Mode{}
	if !m.Given(l) || !m.Chosen(l) || m.Searched(l) || m.Levels(l) != 2 || m.Check(l) != nil {
		t.Error("given, chosen, searched, levels or check")
	}
	l.Cap = 3
	if got := m.Text(l); got != "at rates 1,4 req/s (gamma, burstiness 0.5, at most 3 in flight)" {
		t.Errorf("Text %q", got)
	}
	if m.Conns(l) != 3 || m.Streams(l) != 0 {
		t.Errorf("conns %d streams %d", m.Conns(l), m.Streams(l))
	}
	var rc report.RunConfig
	m.Record(l, &rc)
	if want := (report.OpenLoopConfig{Rates: []float64{1, 4}, Arrival: "gamma", Burstiness: 0.5, Seed: 5, MaxConcurrency: 3}); rc.OpenLoop == nil || !slices.Equal(rc.OpenLoop.Rates, want.Rates) ||
		rc.OpenLoop.Arrival != want.Arrival || rc.OpenLoop.Burstiness != want.Burstiness || rc.OpenLoop.Seed != 5 || rc.OpenLoop.MaxConcurrency != 3 {
		t.Errorf("config %+v", rc.OpenLoop)
	}

	l, err = line(t, nil, "--rates", "auto")
	if err != nil || !Of(l).Auto || !(Mode{}).Searched(l) || !strings.HasPrefix(Mode{}.Text(l), "at rates auto (poisson") {
		t.Errorf("auto: %v %+v %q", err, Of(l), Mode{}.Text(l))
	}
	l, _ = line(t, nil)
	if (Mode{}).Given(l) || (Mode{}).Chosen(l) {
		t.Error("no rate flag: given or chosen")
	}
}

func TestParseRefuses(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--rates", "0"}, `invalid --rates "0": "0" is not a rate`},
		{[]string{"--rates", "1,x"}, `"x" is not a rate`},
		{[]string{"--rates", "1e9"}, "from 0.001 to 10000"},
		{[]string{"--rates", "1", "--arrival", "lumpy"}, `invalid --arrival "lumpy"`},
		{[]string{"--rates", "1", "--arrival", "gamma", "--burstiness", "0"}, "invalid --burstiness 0"},
		{[]string{"--rates", "1", "--burstiness", "2"}, "--burstiness applies to --arrival gamma (got --arrival poisson)"},
		{[]string{"--arrival", "gamma"}, "--arrival applies to an open-loop sweep: give --rates too"},
		{[]string{"--burstiness", "2"}, "--burstiness applies to an open-loop sweep"},
	} {
		_, err := line(t, nil, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.args, err, tt.want)
		}
	}
}

// Start builds the Load of the rates at the cap, or of the search, which
// it returns to say its answer.
func TestStart(t *testing.T) {
	t.Parallel()
	l, _ := line(t, &mode.Line{Cap: 2}, "--rates", "1,2", "--arrival", "constant")
	var cfg sweep.Config
	if run := (Mode{}).Start(context.Background(), mode.Start{Line: l}, &cfg); run.Search != nil {
		t.Error("a list has a search")
	}
	ld, ok := cfg.Load.(*Load)
	if !ok || !slices.Equal(ld.Rates, []float64{1, 2}) || ld.Cap != 2 || ld.Spec.Arrival != sweep.Constant || ld.Mode() != Name {
		t.Fatalf("load %+v", cfg.Load)
	}
	l, _ = line(t, nil, "--rates", "auto")
	var stats []report.LevelStats
	run := Mode{}.Start(context.Background(), mode.Start{Line: l, Stats: &stats}, &cfg)
	if ld := cfg.Load.(*Load); run.Search == nil || ld.Chooser == nil {
		t.Error("auto: no search")
	}
	if k, ok := cfg.Load.Keys()(); !ok || k != (sweep.LevelKey{Mode: Name, Load: 1}) {
		t.Errorf("the search's first key %+v", k)
	}
}

// A level's counts, arrivals and connections: AutoRequests without
// --requests, the cap's connections, else a second's arrivals.
func TestLoad(t *testing.T) {
	t.Parallel()
	ld := &Load{Rates: []float64{4}, Spec: sweep.RateSpec{Arrival: sweep.Constant}}
	k := sweep.LevelKey{Mode: Name, Load: 4}
	if got := ld.Measured(&sweep.Config{}, k); got != 40 {
		t.Errorf("auto count %d, want 40 (10 s at 4 req/s)", got)
	}
	if got := ld.Measured(&sweep.Config{Requests: 7}, k); got != 7 {
		t.Errorf("count %d, want 7", got)
	}
	if AutoRequests(0.5) != 20 {
		t.Errorf("AutoRequests(0.5) %d, want the floor 20", AutoRequests(0.5))
	}
	if ld.WarmConns(k) != 4 || ld.WarmConns(sweep.LevelKey{Load: 1000}) != 64 || ld.WarmConns(sweep.LevelKey{Load: 4, Concurrency: 3}) != 3 {
		t.Error("warm connections")
	}
	if ld.AbortAfter(k) != 8 {
		t.Errorf("abort after %d", ld.AbortAfter(k))
	}
	for _, measured := range []int{5, sweep.Unlimited} {
		if _, err := ld.Arrivals(&sweep.Config{Warmup: 2, Duration: time.Second}, k, measured, 0); err != nil {
			t.Errorf("arrivals of %d: %v", measured, err)
		}
	}
	if _, err := (&Load{Spec: sweep.RateSpec{Arrival: "lumpy"}}).Arrivals(&sweep.Config{}, k, 5, 0); err == nil {
		t.Error("an unknown arrival drew a schedule")
	}
}

func TestShard(t *testing.T) {
	t.Parallel()
	m := Mode{}
	l, _ := line(t, &mode.Line{LevelDuration: 10 * time.Second}, "--rates", "1,2", "--arrival", "constant")
	if err := m.ShardCheck(l, sweep.Part{Index: 0, Of: 2}); err != nil {
		t.Errorf("2 shards: %v", err)
	}
	for _, tt := range []struct {
		l    mode.Line
		args []string
		want string
	}{
		{mode.Line{LevelDuration: time.Second}, []string{"--rates", "auto"}, "--shard needs fixed --rates"},
		{mode.Line{LevelDuration: time.Second, Requests: 5}, []string{"--rates", "1"}, "drop --requests"},
		{mode.Line{LevelDuration: time.Second, Warmup: 2}, []string{"--rates", "1"}, "does not take --warmup"},
		{mode.Line{LevelDuration: time.Second, Cap: 1, CapSet: true}, []string{"--rates", "1"}, "--max-concurrency 1 is below the 2 shards"},
		// 1 req/s for 1 s: one arrival (at 0) for two shards.
		{mode.Line{LevelDuration: time.Second}, []string{"--rates", "1", "--arrival", "constant"}, "holds 1 arrivals in --level-duration 1s, fewer than the 2 shards"},
	} {
		l, _ := line(t, &tt.l, tt.args...)
		if err := m.ShardCheck(l, sweep.Part{Index: 1, Of: 2}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.args, err, tt.want)
		}
	}
	l.Cap = 4
	var info rundir.ShardInfo
	if got := m.ShardLevels(l, &info); !slices.Equal(got, []int{4, 4}) || !slices.Equal(info.Rates, []float64{1, 2}) {
		t.Errorf("ShardLevels %v, rates %v", got, info.Rates)
	}
	ld := &Load{}
	cfg := sweep.Config{Load: ld}
	m.ShardSplit(sweep.Part{Index: 1, Of: 2}, &cfg)
	if ld.Spec.Part != (sweep.Part{Index: 1, Of: 2}) {
		t.Errorf("part %+v", ld.Spec.Part)
	}
}

// The rate mode's engine side and words.
func TestModeWords(t *testing.T) {
	t.Parallel()
	m := Mode{}
	if m.Name() != Name || !m.Open() || m.Marks() || m.RunsSessions() || !m.Claims(&sweep.Level{Rate: 2}) || m.Claims(&sweep.Level{}) {
		t.Error("open, unmarked, no sessions, claims a level with a rate")
	}
	k, capped := sweep.LevelKey{Mode: Name, Load: 16}, sweep.LevelKey{Mode: Name, Load: 4, Concurrency: 2}
	w := m.Words()
	if w.Name(k) != "rate=16/s" || w.Name(capped) != "rate=4/s C≤2" || w.At(k) != "rate 16 req/s" || w.Head != "rate/s" {
		t.Errorf("words %q %q %q %q", w.Name(k), w.Name(capped), w.At(k), w.Head)
	}
	if got := w.Load(k, 18.23, "open loop"); got != "18.23 req/s offered (nominal 16)" {
		t.Errorf("Load %q", got)
	}
	if !m.Unbounded(k) || m.Unbounded(capped) || m.HelpOrder() != 2 || m.Category() != "open loop" || m.FlagsBefore() != nil {
		t.Error("unbounded, help order or placement")
	}
	var sum report.Summary
	m.Summary(nil, &sum)
	if e, ok := m.Estimate(&mode.Line{}).(Estimate); !ok || e.Auto || sum.Trace != nil {
		t.Errorf("estimate %+v", e)
	}
}
