package app

import (
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/sweep"
	"github.com/toksweep/toksweep/workload"
)

// sessionFlags are the flags of multi-turn sessions (README, "Multi-turn
// sessions").
func sessionFlags(o *options) []cli.Flag {
	f := &o.Flags
	return []cli.Flag{
		&cli.IntFlag{Name: "turns", Destination: &f.Turns, Action: given[int](&f.TurnsSet), Usage: "each worker runs synthetic sessions of N turns: a unique opening message of --input-tokens (default 1000), then follow-ups of ~50 tokens; turn k resends the history (earlier messages and the model's streamed replies) plus its message; --requests counts turns"},
		&cli.BoolFlag{Name: "multi-turn", Destination: &f.MultiTurn, Usage: `with --dataset: replay whole conversations (ShareGPT, or JSONL lines {"turns": ["...", ...]}); the model's own replies make the history`},
		&cli.IntFlag{Name: "max-turns", Destination: &f.MaxTurns, Action: given[int](&f.MaxTurnsSet), Usage: "with --multi-turn: at most N turns per conversation"},
		&cli.StringFlag{Name: "think-time", Destination: &f.ThinkTime, Action: given[string](&f.ThinkTimeSet), Usage: "pause between a session's turns, D or MEAN:STDDEV (normal, seeded by --seed, cut at 0), e.g. 2s or 2s:1s; the worker is idle meanwhile"},
	}
}

// maxThinkTime bounds --think-time: a session's pause, not a schedule.
const maxThinkTime = time.Hour

// sessionChecks is the sessions mode's first pass (parse), before the
// prompt set its flags shape is read: --turns and --max-turns within
// their bounds and with the source they go with, and --think-time.
func (o *options) sessionChecks() error {
	f := &o.Flags
	o.Work.thinkSeed = f.Seed
	if f.TurnsSet && f.Turns < 1 {
		return usagef("invalid --turns %d: want an integer ≥ 1", f.Turns)
	}
	if f.MaxTurnsSet && f.MaxTurns < 1 {
		return usagef("invalid --max-turns %d: want an integer ≥ 1", f.MaxTurns)
	}
	if f.ThinkTimeSet {
		if f.Turns == 0 && !f.MultiTurn {
			return usagef("--think-time is the pause between a session's turns: it needs --turns or --multi-turn")
		}
		t, err := parseThinkTime(f.ThinkTime)
		if err != nil {
			return err
		}
		o.Work.Think = t
	}
	switch {
	case f.Turns > workload.MaxTurns:
		return usagef("invalid --turns %d: want 1 to %d", f.Turns, workload.MaxTurns)
	case f.MaxTurns > workload.MaxTurns:
		return usagef("invalid --max-turns %d: want 1 to %d", f.MaxTurns, workload.MaxTurns)
	case f.Turns > 0 && (f.PromptSet || f.PromptFile != "" || f.Dataset != ""):
		return usagef("--turns makes synthetic sessions, sized by --input-tokens: it takes no --prompt, --prompt-file or --dataset (replay a dataset's conversations with --multi-turn)")
	case f.MultiTurn && f.Dataset == "":
		return usagef("--multi-turn replays a dataset's conversations: it needs --dataset")
	case f.MaxTurns > 0 && !f.MultiTurn:
		return usagef("--max-turns caps replayed conversations: it needs --multi-turn (synthetic sessions take --turns)")
	}
	return nil
}

// sessionPrompts puts the checked session flags into the prompt set's
// options (the sessions mode's prompts).
func (o *options) sessionPrompts(wo *workload.Options) {
	f := &o.Flags
	wo.Turns, wo.MultiTurn, wo.MaxTurns = f.Turns, f.MultiTurn, f.MaxTurns
}

// parseThinkTime parses D or MEAN:STDDEV.
func parseThinkTime(raw string) (sweep.Think, error) {
	bad := usagef("invalid --think-time %q: want a duration or MEAN:STDDEV, e.g. 2s or 2s:1s, each from 0 to %v", raw, maxThinkTime)
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

// sessions is the sweep's session source, nil without sessions.
func (w *workSettings) sessions(api client.API) *sweep.Sessions {
	ss := w.Set.Sessions
	if ss == nil {
		return nil
	}
	ss.Completions = api == client.Completions
	return &sweep.Sessions{Open: func() sweep.Conversation { return ss.Open() }, Think: w.Think, Seed: w.thinkSeed}
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
