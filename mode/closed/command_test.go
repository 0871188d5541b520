package closed

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/rundir"
	"github.com/toksweep/toksweep/sweep"
)

// line binds the closed mode's flags into a fresh Line, runs args through
// a real urfave/cli command and then the mode's Parse, as app does.
func line(t *testing.T, requests int, args ...string) (*mode.Line, error) {
	t.Helper()
	l := &mode.Line{Requests: requests}
	app := &cli.App{Name: "t", HideHelp: true, Flags: Mode{}.Flags(l), Action: func(*cli.Context) error { return nil }}
	if err := app.Run(append([]string{"t"}, args...)); err != nil {
		t.Fatalf("flags %q: %v", args, err)
	}
	return l, Mode{}.Parse(l)
}

func TestParseLevels(t *testing.T) {
	t.Parallel()
	l, err := line(t, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s := Of(l); s.Set || !slices.Equal(s.Levels, []int{1, 2, 4, 8, 16, 32, 64}) || s.Auto {
		t.Errorf("no --levels: %+v, want the default levels, not Set", *s)
	}
	if (Mode{}).Given(l) {
		t.Error("Given without --levels")
	}

	l, err = line(t, 2, "--levels", "8, 2,4,2")
	if err != nil {
		t.Fatal(err)
	}
	s := Of(l)
	if !s.Set || !(Mode{}).Given(l) || !slices.Equal(s.Levels, []int{2, 4, 8}) {
		t.Errorf("--levels 8,2,4,2: %+v", *s)
	}
	want := []string{`--levels "8, 2,4,2" sorted and de-duplicated to 2,4,8`,
		"--requests 2 is below some levels; each level runs at least one measured request per worker (C)"}
	if !slices.Equal(l.Warnings, want) {
		t.Errorf("warnings %q, want %q", l.Warnings, want)
	}
	m := Mode{}
	if got := m.Text(l); got != "at levels 2,4,8" {
		t.Errorf("Text %q", got)
	}
	if m.Levels(l) != 3 || m.Conns(l) != 8 || m.Streams(l) != 8 || m.Searched(l) {
		t.Errorf("Levels %d Conns %d Streams %d Searched %v", m.Levels(l), m.Conns(l), m.Streams(l), m.Searched(l))
	}
	var rc report.RunConfig
	m.Record(l, &rc)
	if !slices.Equal(rc.Levels, []int{2, 4, 8}) || rc.LevelsAuto {
		t.Errorf("Record: %+v", rc)
	}
}

func TestParseAuto(t *testing.T) {
	t.Parallel()
	l, err := line(t, 0, "--levels", " auto ", "--auto-max", "48")
	if err != nil {
		t.Fatal(err)
	}
	m := Mode{}
	if !m.Searched(l) || m.Levels(l) != 0 || m.Conns(l) != 0 || m.Streams(l) != 48 {
		t.Errorf("auto: Searched %v Levels %d Conns %d Streams %d", m.Searched(l), m.Levels(l), m.Conns(l), m.Streams(l))
	}
	if got := m.Text(l); got != "at levels auto (up to 48)" {
		t.Errorf("Text %q", got)
	}
	var rc report.RunConfig
	m.Record(l, &rc)
	if !rc.LevelsAuto || rc.AutoMax != 48 || rc.Levels != nil {
		t.Errorf("Record: %+v", rc)
	}
	if e, ok := m.Estimate(l).(Estimate); !ok || e != nil {
		t.Errorf("Estimate of a search: %#v, want a nil Estimate", m.Estimate(l))
	}
	if err := m.ShardCheck(l, sweep.Part{Index: 0, Of: 2}); err == nil || !strings.Contains(err.Error(), "adaptive search cannot be split") {
		t.Errorf("ShardCheck of a search: %v", err)
	}
}

func TestParseRefuses(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--levels", "1,,4"}, `invalid --levels "1,,4": an empty entry`},
		{[]string{"--levels", "0"}, `invalid --levels "0": "0" is not a positive integer`},
		{[]string{"--levels", "-3"}, `"-3" is not a positive integer`},
		{[]string{"--levels", "x"}, `"x" is not a positive integer`},
		{[]string{"--levels", "100001"}, `100001 is too high`},
		{[]string{"--levels", "99999999999999999999"}, `99999999999999999999 is too high`},
		{[]string{"--auto-max", "0"}, "invalid --auto-max 0: want an integer from 1 to 100000"},
		{[]string{"--auto-granularity", "0"}, "invalid --auto-granularity 0: want an integer ≥ 1"},
	} {
		_, err := line(t, 0, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.args, err, c.want)
			continue
		}
		if _, ok := err.(*mode.UsageError); !ok {
			t.Errorf("%q: %T is not a mode.UsageError", c.args, err)
		}
	}
	many := strings.Repeat("1,", MaxLevelList) + "2"
	l := &mode.Line{}
	s := Of(l)
	s.Raw, s.AutoMax, s.AutoGranularity = many, 1, 1
	if err := (Mode{}).Parse(l); err != nil {
		t.Fatalf("repeated levels compact: %v", err)
	}
	var parts []string
	for i := 1; i <= MaxLevelList+1; i++ {
		parts = append(parts, strconv.Itoa(i))
	}
	s.Raw = strings.Join(parts, ",")
	if err := (Mode{}).Parse(l); err == nil || !strings.Contains(err.Error(), "1001 levels, at most 1000") {
		t.Errorf("1001 levels: %v", err)
	}
}

func TestShard(t *testing.T) {
	t.Parallel()
	l, err := line(t, 0, "--levels", "2,4")
	if err != nil {
		t.Fatal(err)
	}
	m := Mode{}
	if err := m.ShardCheck(l, sweep.Part{Index: 1, Of: 2}); err != nil {
		t.Errorf("2 shards of 2,4: %v", err)
	}
	err = m.ShardCheck(l, sweep.Part{Index: 2, Of: 3})
	if err == nil || err.Error() != "--shard 2/3: level 2 is below the 3 shards: every shard needs a worker at every level" {
		t.Errorf("3 shards of 2,4: %v", err)
	}
	var info rundir.ShardInfo
	if got := m.ShardLevels(l, &info); !slices.Equal(got, []int{2, 4}) || !slices.Equal(info.Levels, got) {
		t.Errorf("ShardLevels %v, info %v", got, info.Levels)
	}
}

func TestStartBuildsTheLoad(t *testing.T) {
	t.Parallel()
	l, err := line(t, 0, "--levels", "1,3")
	if err != nil {
		t.Fatal(err)
	}
	var cfg sweep.Config
	if run := (Mode{}).Start(context.Background(), mode.Start{Line: l}, &cfg); run.Search != nil || run.Note != nil || run.Preface != nil || run.Closing != nil {
		t.Errorf("Start adds output: %+v", run)
	}
	ld, ok := cfg.Load.(Load)
	if !ok || ld.Mode() != sweep.ClosedMode || ld.Chooser != nil {
		t.Fatalf("Load %#v", cfg.Load)
	}
	var keys []sweep.LevelKey
	next := ld.Keys()
	for k, ok := next(); ok; k, ok = next() {
		keys = append(keys, k)
	}
	want := []sweep.LevelKey{{Mode: sweep.ClosedMode, Concurrency: 1}, {Mode: sweep.ClosedMode, Concurrency: 3}}
	if !slices.Equal(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}

	l, err = line(t, 0, "--levels", "auto", "--auto-max", "8")
	if err != nil {
		t.Fatal(err)
	}
	(Mode{}).Start(context.Background(), mode.Start{Line: l, Stats: &[]report.LevelStats{}}, &cfg)
	if ld := cfg.Load.(Load); ld.Chooser == nil {
		t.Error("--levels auto: no chooser")
	} else if k, ok := ld.Keys()(); !ok || k.Concurrency != 1 {
		t.Errorf("the search's first level %v %v, want C=1", k, ok)
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	ld := Load{Name: "sessions", Levels: []int{4}}
	if ld.Mode() != "sessions" {
		t.Errorf("Mode %q", ld.Mode())
	}
	k := sweep.LevelKey{Mode: "sessions", Concurrency: 4}
	for _, c := range []struct{ requests, want int }{{0, sweep.AutoRequests(4)}, {2, 4}, {10, 10}} {
		if got := ld.Measured(&sweep.Config{Requests: c.requests}, k); got != c.want {
			t.Errorf("Measured with --requests %d: %d, want %d", c.requests, got, c.want)
		}
	}
	if ld.WarmConns(k) != 4 || ld.AbortAfter(k) != 4 || ld.AbortAfter(sweep.LevelKey{}) != 1 {
		t.Errorf("WarmConns %d AbortAfter %d", ld.WarmConns(k), ld.AbortAfter(k))
	}
	if a, err := ld.Arrivals(nil, k, 8, 0); err != nil || a == nil {
		t.Errorf("Arrivals: %v %v", a, err)
	}
}

func TestModeWords(t *testing.T) {
	t.Parallel()
	m := Mode{}
	if m.Open() || m.Marks() || m.RunsSessions() || !m.Claims(&sweep.Level{}) || m.Unbounded(sweep.LevelKey{}) {
		t.Error("the closed loop is closed, unmarked, without sessions, claims every level and is bounded")
	}
	k := sweep.LevelKey{Mode: sweep.ClosedMode, Concurrency: 4}
	w := m.Words()
	if w.Name(k) != "C=4" || w.At(k) != "concurrency 4" || w.Head != "C" {
		t.Errorf("words %q %q %q", w.Name(k), w.At(k), w.Head)
	}
	if got := List([]sweep.LevelKey{{Concurrency: 2}, {Concurrency: 4}}); got != "C=2,4" {
		t.Errorf("List %q", got)
	}
	if m.HelpOrder() != 0 || m.Category() != "load shape" || m.FlagsBefore()["levels"] != "requests" || m.Check(nil) != nil || !m.Chosen(nil) {
		t.Error("help order, placement, check or choice changed")
	}
	if m.Name() != sweep.ClosedMode || m.Rank() <= (rankOf(sweep.SessionsMode)) {
		t.Errorf("name %q rank %d: the closed loop asks last", m.Name(), m.Rank())
	}
	// The closed loop adds nothing to summary.json beside its config, nor
	// to a shard's Config beyond its part of the workers.
	var sum report.Summary
	m.Summary(nil, &sum)
	cfg := sweep.Config{Load: Load{Levels: []int{2}}}
	m.ShardSplit(sweep.Part{Index: 1, Of: 2}, &cfg)
	if sum.Trace != nil || !slices.Equal(cfg.Load.(Load).Levels, []int{2}) {
		t.Error("Summary or ShardSplit changed something")
	}
}

// rankOf is the rank of a registered mode; 0 if none.
func rankOf(name string) int {
	if m := sweep.ModeNamed(name); m != nil {
		return m.Rank()
	}
	return 0
}
