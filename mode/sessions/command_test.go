package sessions

import (
	"context"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/mode/closed"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
	"github.com/toksweep/toksweep/workload"
)

// line is a mode.Line with the sessions' flags (and the closed loop's)
// parsed from args as urfave/cli binds them.
func line(t *testing.T, args ...string) *mode.Line {
	t.Helper()
	l := &mode.Line{}
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	flags := append(Mode{}.Flags(l), closed.Mode{}.Flags(l)...)
	for _, f := range flags {
		if err := f.Apply(fs); err != nil {
			t.Fatal(err)
		}
	}
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	ctx := cli.NewContext(cli.NewApp(), fs, nil)
	for _, f := range flags {
		if a, ok := f.(cli.ActionableFlag); ok && fs.Lookup(f.Names()[0]) != nil && ctx.IsSet(f.Names()[0]) {
			if err := a.RunAction(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	return l
}

// check runs the mode's passes before the prompt set is read: Parse, then
// Prompts against the source wo names.
func check(l *mode.Line, wo workload.Options) error {
	if err := (Mode{}).Parse(l); err != nil {
		return err
	}
	return Mode{}.Prompts(l, &wo)
}

// Each sessions flag is checked against its bounds, the other sessions
// flags and the prompt source it goes with, in one usage error.
func TestSessionChecks(t *testing.T) {
	t.Parallel()
	dataset := workload.Options{Dataset: "c.jsonl"}
	for _, tt := range []struct {
		args []string
		wo   workload.Options
		want string
	}{
		{[]string{"--turns", "3"}, workload.Options{Prompt: "hi", PromptSet: true}, "--turns makes synthetic sessions, sized by --input-tokens"},
		{[]string{"--turns", "3"}, workload.Options{PromptFile: "p.txt"}, "--turns makes synthetic sessions, sized by --input-tokens"},
		{[]string{"--turns", "3"}, dataset, "--turns makes synthetic sessions, sized by --input-tokens"},
		{[]string{"--turns", "0"}, workload.Options{}, "invalid --turns 0"},
		{[]string{"--turns", "1001"}, workload.Options{}, "invalid --turns 1001: want 1 to 1000"},
		{[]string{"--multi-turn"}, workload.Options{}, "--multi-turn replays a dataset's conversations: it needs --dataset"},
		{[]string{"--multi-turn"}, workload.Options{InputTokens: 100}, "--multi-turn replays a dataset's conversations: it needs --dataset"},
		{[]string{"--max-turns", "2"}, dataset, "--max-turns caps replayed conversations"},
		{[]string{"--max-turns", "0", "--multi-turn"}, dataset, "invalid --max-turns 0"},
		{[]string{"--max-turns", "1001", "--multi-turn"}, dataset, "invalid --max-turns 1001: want 1 to 1000"},
		{[]string{"--think-time", "1s"}, workload.Options{}, "--think-time is the pause between a session's turns"},
		{[]string{"--turns", "2", "--think-time", "1s:x"}, workload.Options{}, `invalid --think-time "1s:x"`},
		{[]string{"--turns", "2", "--think-time", "-1s"}, workload.Options{}, `invalid --think-time "-1s"`},
		{[]string{"--turns", "2", "--think-time", "2h"}, workload.Options{}, `invalid --think-time "2h"`},
		{[]string{"--turns", "2", "--think-time", "1s:-1s"}, workload.Options{}, `invalid --think-time "1s:-1s"`},
	} {
		err := check(line(t, tt.args...), tt.wo)
		if _, usage := err.(*mode.UsageError); !usage || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: %v; want a usage error with %q", tt.args, err, tt.want)
		}
	}
}

// Checked flags go into the prompt set's options, the think time parsed
// and its draws seeded by the set's seed; a command line without them is
// not a sessions sweep and gives the set nothing.
func TestSessionFlagsShapeThePrompts(t *testing.T) {
	t.Parallel()
	l := line(t, "--multi-turn", "--max-turns", "3", "--think-time", "2s:500ms")
	wo := workload.Options{Dataset: "c.jsonl", Seed: 7}
	if err := check(l, wo); err != nil {
		t.Fatal(err)
	}
	if err := (Mode{}).Prompts(l, &wo); err != nil {
		t.Fatal(err)
	}
	s := Of(l)
	if !wo.MultiTurn || wo.MaxTurns != 3 || wo.Turns != 0 || s.Think != (sweep.Think{Mean: 2 * time.Second, Stddev: 500 * time.Millisecond}) || s.seed != 7 {
		t.Errorf("options %+v, think %+v, seed %d", wo, s.Think, s.seed)
	}
	if !(Mode{}).Given(l) || !(Mode{}).Chosen(l) {
		t.Error("--multi-turn: not given, or not chosen")
	}
	for _, args := range [][]string{{"--turns", "2"}, {"--multi-turn=false"}, {"--think-time", "1s"}} {
		if !(Mode{}).Given(line(t, args...)) {
			t.Errorf("%v: not given", args)
		}
	}
	none := line(t, "--levels", "2")
	if (Mode{}).Given(none) || (Mode{}).Chosen(none) {
		t.Error("--levels alone: a sessions flag given, or the mode chosen")
	}
	wo = workload.Options{InputTokens: 100}
	if err := check(none, wo); err != nil || wo.Turns != 0 || wo.MultiTurn {
		t.Errorf("no sessions: %v, %+v", err, wo)
	}
}

// Loaded takes the set's conversations for the API and says the think
// time after the set's description; a set without them says nothing.
func TestLoadedSaysTheThinkTime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		think string
		api   client.API
		want  string
	}{
		{"", client.Chat, ""},
		{"2s", client.Completions, ", think time 2s"},
		{"2s:1s", client.Chat, ", think time 2s (stddev 1s)"},
	} {
		args := []string{"--turns", "2"}
		if tc.think != "" {
			args = append(args, "--think-time", tc.think)
		}
		l := line(t, args...)
		wo := workload.Options{}
		if err := check(l, wo); err != nil {
			t.Fatal(err)
		}
		(Mode{}).Prompts(l, &wo)
		set, err := workload.Load(wo)
		if err != nil {
			t.Fatal(err)
		}
		if got := (Mode{}).Loaded(l, set, tc.api); got != tc.want || set.Sessions.Completions != (tc.api == client.Completions) {
			t.Errorf("--think-time %q over %s: %q, completions %v; want %q", tc.think, tc.api, got, set.Sessions.Completions, tc.want)
		}
	}
	if got := (Mode{}).Loaded(line(t), &workload.Set{}, client.Chat); got != "" {
		t.Errorf("no sessions: %q", got)
	}
}

// Start builds the closed loop's levels keyed as sessions, whose workers
// open the prompt set's conversations and bring their own prompts; the
// levels' words, count and summary.json record are the closed loop's.
func TestStartBuildsTheSessionsLoad(t *testing.T) {
	t.Parallel()
	l := line(t, "--turns", "2", "--levels", "4,1", "--think-time", "1s")
	if err := (closed.Mode{}).Parse(l); err != nil {
		t.Fatal(err)
	}
	wo := workload.Options{}
	if err := check(l, wo); err != nil {
		t.Fatal(err)
	}
	(Mode{}).Prompts(l, &wo)
	set, err := workload.Load(wo)
	if err != nil {
		t.Fatal(err)
	}
	(Mode{}).Loaded(l, set, client.Chat)
	var cfg sweep.Config
	if run := (Mode{}).Start(context.Background(), mode.Start{Line: l}, &cfg); run.Search != nil {
		t.Error("fixed levels: a search")
	}
	ld, ok := cfg.Load.(Load)
	if !ok || ld.Mode() != Name || !ld.OwnPrompts() || ld.Sessions.Think.Mean != time.Second {
		t.Fatalf("load %+v", cfg.Load)
	}
	next := ld.Keys()
	for _, c := range []int{1, 4} {
		if k, ok := next(); !ok || k != (sweep.LevelKey{Mode: Name, Concurrency: c}) {
			t.Errorf("key %+v, want sessions C=%d", k, c)
		}
	}
	if conv := ld.Sessions.Open(); conv.Turns() != 2 {
		t.Errorf("a session of %d turns, want 2", conv.Turns())
	}
	if a, err := ld.Arrivals(&cfg, sweep.LevelKey{Mode: Name, Concurrency: 4}, 8, 0); a == nil || err != nil {
		t.Errorf("arrivals %v, %v", a, err)
	}
	m := Mode{}
	if m.Text(l) != "at levels 1,4" || m.Levels(l) != 2 || m.Searched(l) || m.Conns(l) != 4 || m.Streams(l) != 4 {
		t.Errorf("text %q, levels %d, searched %v, conns %d, streams %d", m.Text(l), m.Levels(l), m.Searched(l), m.Conns(l), m.Streams(l))
	}

	auto := line(t, "--turns", "2", "--levels", "auto", "--auto-max", "16")
	(closed.Mode{}).Parse(auto)
	if run := m.Start(context.Background(), mode.Start{Line: auto, Stats: new([]report.LevelStats)}, &cfg); cfg.Load.(Load).Chooser == nil || !m.Searched(auto) || m.Streams(auto) != 16 {
		t.Errorf("--levels auto: %+v, run %+v", cfg.Load, run)
	}
}
