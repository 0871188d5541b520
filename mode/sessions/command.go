package sessions

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/mode/closed"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
	"github.com/toksweep/toksweep/workload"
)

// Settings are the sessions' flags on a command line and what their
// checks and the prompt set made of them.
type Settings struct {
	Turns        int // --turns: synthetic sessions of that many turns
	TurnsSet     bool
	MultiTurn    bool // --multi-turn: replay --dataset's conversations
	MultiTurnSet bool
	MaxTurns     int // --max-turns: cap on a replayed conversation's turns
	MaxTurnsSet  bool
	ThinkRaw     string // --think-time as given
	ThinkSet     bool
	Think        sweep.Think // checked --think-time

	seed  int64              // --seed, the prompt set's, for the think-time draws
	convs *workload.Sessions // the prompt set's conversations, once read
}

// Of is the sessions' settings in l.
func Of(l *mode.Line) *Settings { return mode.Settings[Settings](l, Name) }

// maxThinkTime bounds --think-time: a session's pause, not a schedule.
const maxThinkTime = time.Hour

// Flags are the flags of multi-turn sessions (README, "Multi-turn
// sessions").
func (Mode) Flags(l *mode.Line) []cli.Flag {
	s := Of(l)
	return []cli.Flag{
		&cli.IntFlag{Name: "turns", Destination: &s.Turns, Action: mode.Given[int](&s.TurnsSet), Usage: "each worker runs synthetic sessions of N turns: a unique opening message of --input-tokens (default 1000), then follow-ups of ~50 tokens; turn k resends the history (earlier messages and the model's streamed replies) plus its message; --requests counts turns"},
		&cli.BoolFlag{Name: "multi-turn", Destination: &s.MultiTurn, Action: mode.Given[bool](&s.MultiTurnSet), Usage: `with --dataset: replay whole conversations (ShareGPT, or JSONL lines {"turns": ["...", ...]}); the model's own replies make the history`},
		&cli.IntFlag{Name: "max-turns", Destination: &s.MaxTurns, Action: mode.Given[int](&s.MaxTurnsSet), Usage: "with --multi-turn: at most N turns per conversation"},
		&cli.StringFlag{Name: "think-time", Destination: &s.ThinkRaw, Action: mode.Given[string](&s.ThinkSet), Usage: "pause between a session's turns, D or MEAN:STDDEV (normal, seeded by --seed, cut at 0), e.g. 2s or 2s:1s; the worker is idle meanwhile"},
	}
}

// Category is "sessions", the flags' category in --help.
func (Mode) Category() string { return "sessions" }

// HelpOrder places the sessions' flags after the closed loop's.
func (Mode) HelpOrder() int { return 1 }

// FlagsBefore is none: the flags stand in the modes' block.
func (Mode) FlagsBefore() map[string]string { return nil }

// Given reports whether any sessions flag was given.
func (Mode) Given(l *mode.Line) bool {
	s := Of(l)
	return s.TurnsSet || s.MultiTurnSet || s.MaxTurnsSet || s.ThinkSet
}

// Parse is the first pass, before the prompt set is read: --turns and
// --max-turns within their bounds, --max-turns with --multi-turn, and
// --think-time with a session to pause in.
func (Mode) Parse(l *mode.Line) error {
	s := Of(l)
	switch {
	case s.TurnsSet && s.Turns < 1:
		return mode.Usagef("invalid --turns %d: want an integer ≥ 1", s.Turns)
	case s.MaxTurnsSet && s.MaxTurns < 1:
		return mode.Usagef("invalid --max-turns %d: want an integer ≥ 1", s.MaxTurns)
	case s.ThinkSet && s.Turns == 0 && !s.MultiTurn:
		return mode.Usagef("--think-time is the pause between a session's turns: it needs --turns or --multi-turn")
	}
	if s.ThinkSet {
		t, err := parseThinkTime(s.ThinkRaw)
		if err != nil {
			return err
		}
		s.Think = t
	}
	switch {
	case s.Turns > workload.MaxTurns:
		return mode.Usagef("invalid --turns %d: want 1 to %d", s.Turns, workload.MaxTurns)
	case s.MaxTurns > workload.MaxTurns:
		return mode.Usagef("invalid --max-turns %d: want 1 to %d", s.MaxTurns, workload.MaxTurns)
	case s.MaxTurns > 0 && !s.MultiTurn:
		return mode.Usagef("--max-turns caps replayed conversations: it needs --multi-turn (synthetic sessions take --turns)")
	}
	return nil
}

// Prompts checks the sessions against the prompt source the command line
// names (--turns makes its own, --multi-turn replays --dataset's) and puts
// them into the prompt set's options; the think-time draws take its seed.
func (Mode) Prompts(l *mode.Line, wo *workload.Options) error {
	s := Of(l)
	switch {
	case s.Turns > 0 && (wo.PromptSet || wo.PromptFile != "" || wo.Dataset != ""):
		return mode.Usagef("--turns makes synthetic sessions, sized by --input-tokens: it takes no --prompt, --prompt-file or --dataset (replay a dataset's conversations with --multi-turn)")
	case s.MultiTurn && wo.Dataset == "":
		return mode.Usagef("--multi-turn replays a dataset's conversations: it needs --dataset")
	}
	wo.Turns, wo.MultiTurn, wo.MaxTurns = s.Turns, s.MultiTurn, s.MaxTurns
	s.seed = wo.Seed
	return nil
}

// Loaded takes the prompt set's conversations, each turn built for api,
// and says the think time after the set's description.
func (Mode) Loaded(l *mode.Line, set *workload.Set, api client.API) string {
	s := Of(l)
	if s.convs = set.Sessions; s.convs == nil {
		return ""
	}
	s.convs.Completions = api == client.Completions
	return thinkText(s.Think)
}

// Check has nothing more to check once the workload is known.
func (Mode) Check(*mode.Line) error { return nil }

// Chosen reports whether --turns or --multi-turn was given.
func (Mode) Chosen(l *mode.Line) bool { s := Of(l); return s.Turns > 0 || s.MultiTurn }

// Text is the closed loop's, as are Searched, Levels, Conns, Streams
// and Record: the levels are its.
func (Mode) Text(l *mode.Line) string                  { return closed.Of(l).Text() }
func (Mode) Searched(l *mode.Line) bool                { return closed.Of(l).Auto }
func (Mode) Levels(l *mode.Line) int                   { return len(closed.Of(l).Levels) }
func (Mode) Conns(l *mode.Line) int                    { return closed.Of(l).Conns() }
func (Mode) Streams(l *mode.Line) int                  { return closed.Of(l).Streams() }
func (Mode) Record(l *mode.Line, rc *report.RunConfig) { closed.Of(l).Record(rc) }

// Summary adds nothing beside the config.
func (Mode) Summary(*mode.Line, *report.Summary) {}

// Estimate is the closed loop's, each turn after its mean pause: its tool
// wait where the dataset gives one, else the think time (none before a
// session's first turn; workload.Sessions.MeanPause).
func (Mode) Estimate(l *mode.Line) mode.Estimate {
	s := Of(l)
	pause := s.Think.Mean
	if s.convs != nil {
		pause = s.convs.MeanPause(pause)
	}
	return Estimate{Closed: closed.Mode{}.Estimate(l), Think: pause}
}

// Start makes cfg a sessions sweep: the closed loop's levels (or its
// search, judged on the sessions' levels), each worker running the
// prompt set's conversations. A sessions run has no shard split: every
// shard would open the same conversations.
func (Mode) Start(_ context.Context, st mode.Start, cfg *sweep.Config) mode.Run {
	s := Of(st.Line)
	conv := s.convs
	ld := closed.Of(st.Line).Load(Name, st)
	cfg.Load = Load{
		Load:     ld,
		Sessions: &sweep.Sessions{Open: Opener(conv), Think: s.Think, Seed: s.seed},
	}
	return ld.Run()
}

// parseThinkTime parses D or MEAN:STDDEV.
func parseThinkTime(raw string) (sweep.Think, error) {
	bad := mode.Usagef("invalid --think-time %q: want a duration or MEAN:STDDEV, e.g. 2s or 2s:1s, each from 0 to %v", raw, maxThinkTime)
	ms, sds, spread := strings.Cut(strings.TrimSpace(raw), ":")
	var t sweep.Think
	var err error
	if t.Mean, err = time.ParseDuration(ms); err != nil || t.Mean < 0 || t.Mean > maxThinkTime {
		return t, bad
	}
	if spread {
		if t.Stddev, err = time.ParseDuration(sds); err != nil || t.Stddev < 0 || t.Stddev > maxThinkTime {
			return t, bad
		}
	}
	return t, nil
}

// thinkText describes the think time for the run's prompt source line.
func thinkText(t sweep.Think) string {
	switch {
	case t.Stddev > 0:
		return fmt.Sprintf(", think time %v (stddev %v)", t.Mean, t.Stddev)
	case t.Mean > 0:
		return fmt.Sprintf(", think time %v", t.Mean)
	}
	return ""
}
