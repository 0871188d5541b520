package sessions

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/sweep"
	"github.com/toksweep/toksweep/workload"
)

// An agentic session opens as a sweep.Agent whose sub-sessions open as
// plain conversations when they have no waits or sub-sessions of their
// own (agent.jsonl's; an OTel trace's have their waits).
func TestOpenerMakesAgents(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file   string
		subsAt int // the turn whose reply starts the sub-sessions
	}{{"agent.jsonl", 1}, {"otel-agent.jsonl", 0}} {
		wo := workload.Options{Dataset: filepath.Join("..", "..", "testdata", "datasets", tc.file), MultiTurn: true}
		if tc.file == "otel-agent.jsonl" {
			wo.Format = workload.OTel
		}
		set, err := workload.Load(wo)
		if err != nil {
			t.Fatal(err)
		}
		c := Opener(set.Sessions)()
		ag, ok := c.(sweep.Agent)
		if !ok {
			t.Fatalf("%s: %T is no agent", tc.file, c)
		}
		if _, ok := c.(sweep.Prefixed); !ok {
			t.Errorf("%s: no history share", tc.file)
		}
		c.Prompt(0, nil)
		subs, parallel := ag.Branch(tc.subsAt, []string{"reply 1", "reply 2"})
		if len(subs) != 2 || !parallel {
			t.Fatalf("%s: turn %d starts %d sub-sessions (parallel %v), want 2 at once", tc.file, tc.subsAt+1, len(subs), parallel)
		}
		if _, isAgent := subs[0].(sweep.Agent); isAgent == (tc.file == "agent.jsonl") {
			t.Errorf("%s: sub-session %T", tc.file, subs[0])
		}
		if d, ok := ag.Wait(1); !ok || d <= 0 {
			t.Errorf("%s: turn 2 waits %v (%v)", tc.file, d, ok)
		}
	}
}

// A replayed agentic dataset's estimate pauses each turn by its tool wait
// where it gives one, not by the think time alone.
func TestEstimateCountsTheToolWaits(t *testing.T) {
	t.Parallel()
	wo := workload.Options{Dataset: filepath.Join("..", "..", "testdata", "datasets", "agent.jsonl"), MultiTurn: true}
	set, err := workload.Load(wo)
	if err != nil {
		t.Fatal(err)
	}
	var l mode.Line
	Of(&l).Think.Mean = time.Second
	Mode{}.Loaded(&l, set, client.Chat)
	got := Mode{}.Estimate(&l).(Estimate).Think
	if want := set.Sessions.MeanPause(time.Second); got != want || want == time.Second || want == 0 {
		t.Errorf("pause %v, want the dataset's mean pause %v (neither the think time nor 0)", got, want)
	}
}
