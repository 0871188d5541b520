package report

import (
	"math"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
)

// agentTurn is a successful turn of session 1: sub-session branch, turn
// k, Start–End, TTFT, history share, and the wait before it.
func agentTurn(branch, k int, start, end, ttft time.Duration, history float64, tool, think time.Duration) client.Record {
	return with(turn(0, 1, k, start, ttft, 100), func(r *client.Record) {
		r.Branch, r.End, r.History, r.ToolWait, r.Think = branch, end, history, tool, think
	})
}

// One session of 4 s: root turns 0–1 s, 1.5–2 s (after a 500 ms tool
// wait) and 3.4–4 s (after a think time); after turn 2 two sub-sessions
// overlap, 2.1–2.6 s and 2.3–3 s, each after a tool wait. In flight: 1 +
// 0.5 + 0.9 + 0.6 = 3 s; idle before a tool-wait turn: 0.5 (before turn
// 2) + 0.1 (before the first sub-session) = 0.6 s; idle before the think
// turn: 0.4 s. Turns of ≥ 80% history: TTFT 200, 300, 250 ms.
func TestAgentSessionTime(t *testing.T) {
	st := Summarize(level(1,
		agentTurn(0, 1, 0, time.Second, 100*msec, 0, 0, 0),
		agentTurn(0, 2, 1500*msec, 2000*msec, 200*msec, 0.9, 500*msec, 0),
		agentTurn(1, 1, 2300*msec, 3000*msec, 300*msec, 0.95, 300*msec, 0),
		agentTurn(2, 1, 2100*msec, 2600*msec, 150*msec, 0.5, 100*msec, 0),
		agentTurn(0, 3, 3400*msec, 4000*msec, 250*msec, 0.85, 0, 400*msec),
	), Settings{}).Session
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"server share", st.ServerShare, 3.0 / 4},
		{"tool share", st.ToolShare, 0.6 / 4},
		{"think share", st.PauseShare, 0.4 / 4},
		{"idle share", st.ThinkShare, 1.0 / 4},
	} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s %v, want %v", c.name, c.got, c.want)
		}
	}
	if st.DurationP50 != 4*time.Second || st.Sessions != 1 || st.TurnsMean != 5 {
		t.Errorf("duration %v, %d sessions, %v turns; want 4s, 1, 5", st.DurationP50, st.Sessions, st.TurnsMean)
	}
	// Nearest rank of {200, 250, 300}; turn 1 is the root's only.
	if st.TTFTLongP50 != 250*msec || st.TTFTLongP95 != 300*msec || st.LongTurns != 3 || st.TTFTTurn1P95 != 100*msec {
		t.Errorf("long-prefix TTFT p50 %v p95 %v over %d; turn 1 p95 %v", st.TTFTLongP50, st.TTFTLongP95, st.LongTurns, st.TTFTTurn1P95)
	}
}
