package sessions

import (
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/mode/closed"
	"github.com/toksweep/toksweep/sweep"
)

// A sessions level is named, counted and headed in sessions, keyed by C
// as a closed loop's; a saved level is the sessions' when its records are
// turns of sessions.
func TestSessionsLevels(t *testing.T) {
	t.Parallel()
	k := sweep.LevelKey{Mode: Name, Concurrency: 4}
	w := k.Words()
	if k.Name() != "C=4" || k.At() != "4 concurrent sessions" || w.Head != "sessions" || w.Users != "concurrent sessions" || k.IsOpen() || !k.RunsSessions() || k.Unbounded() {
		t.Errorf("%q %q head %q users %q open %v sessions %v unbounded %v", k.Name(), k.At(), w.Head, w.Users, k.IsOpen(), k.RunsSessions(), k.Unbounded())
	}
	if got := sweep.NameList([]sweep.LevelKey{{Mode: Name, Concurrency: 2}, k}); got != "C=2,4" {
		t.Errorf("NameList %q", got)
	}
	for _, tc := range []struct {
		l    sweep.Level
		mode string
	}{
		{sweep.Level{Concurrency: 2, Records: []client.Record{{Session: 1, Turn: 1}}}, Name},
		{sweep.Level{Concurrency: 2, Records: []client.Record{{}}}, sweep.ClosedMode},
		{sweep.Level{Concurrency: 2}, sweep.ClosedMode},
	} {
		if got := tc.l.Key().Mode; got != tc.mode {
			t.Errorf("%+v: mode %q, want %q", tc.l.Records, got, tc.mode)
		}
	}
}

// The estimate is the closed loop's with the think time before every
// turn: at 40 output tokens a turn (1 s at the assumed 40 tok/s) and a
// 1 s think time, C=1 runs 16 turns of 2 s and C=4 four per worker: 40 s,
// where the closed loop's is 20 s; a turn measured at 3 s, its think time
// taken off, is 2 s alone.
func TestEstimateCountsTheThinkTime(t *testing.T) {
	t.Parallel()
	est := Estimate{Closed: closed.Estimate{1, 4}, Think: time.Second}
	p := mode.Timing{Est: est, Repeat: 1, Requests: 16, Tokens: 40}
	per := p.AssumedPerRequest()
	if got := p.TimeLeft(0, per); got != 40*time.Second {
		t.Errorf("sessions: %v left, want 40s", got)
	}
	if got := (mode.Timing{Est: est.Closed, Repeat: 1, Requests: 16, Tokens: 40}).TimeLeft(0, per); got != 20*time.Second {
		t.Errorf("closed loop: %v left, want 20s", got)
	}
	if got := p.TimeLeft(1, per); got != 8*time.Second {
		t.Errorf("after C=1: %v left, want 8s", got)
	}
	k := sweep.LevelKey{Mode: Name, Concurrency: 1}
	if at, ok := est.PerRequest(p, k, 32*time.Second); !ok || at != 2*time.Second {
		t.Errorf("C=1 in 32s: %v a turn (%v), want 2s", at, ok)
	}
	if alone := est.Alone(p, k, 3*time.Second); alone != 2*time.Second {
		t.Errorf("alone %v, want 2s", alone)
	}
	if est.Runs(p) != 2 {
		t.Errorf("%d runs, want 2", est.Runs(p))
	}
	if got, want := p.UpFront(), "the sweep takes about 40 seconds: 2 levels × 4–16 requests per worker"; len(got) < len(want) || got[:len(want)] != want {
		t.Errorf("up front %q, want prefix %q", got, want)
	}
}

// The sessions run at the closed loop's levels (Extends), their flags in
// --help's "sessions".
func TestExtendsTheClosedLoop(t *testing.T) {
	t.Parallel()
	if m := (Mode{}); m.Extends() != sweep.ClosedMode || m.Category() != "sessions" || m.HelpOrder() != 1 || m.FlagsBefore() != nil {
		t.Errorf("extends %q, category %q", m.Extends(), m.Category())
	}
}
