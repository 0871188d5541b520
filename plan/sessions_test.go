package plan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// TestPlanOnASessionRun: a multi-turn level is answered in sessions.
// C=4 sessions run twice at X = 2 turns/s, with 3 and 5 turns per session
// (mean 4) over 6 and 10 sessions: a replica completes Xs = 2 / 4 = 0.5
// sessions/s (43200 a day), is planned at 4 × 0.75 = 3 concurrent
// sessions; --users 30 concurrent sessions need ceil(30 / (4 × 0.75)) =
// 10 replicas; the peak of 10 turns/s is 10 / 4 = 2.5 sessions/s, and
// ceil(10 / (2 × 0.75)) = ceil(6.67) = 7 replicas (= ceil(2.5 / (0.5 ×
// 0.75))).
func TestPlanOnASessionRun(t *testing.T) {
	t.Parallel()
	stats, levels := build([]lvl{{4, 2, time.Second, yes, false}, {4, 2, time.Second, yes, false}, {8, 3, time.Second, no, false}})
	for i, st := range []report.SessionStats{{Sessions: 6, TurnsMean: 3}, {Sessions: 10, TurnsMean: 5}, {Sessions: 9, TurnsMean: 4}} {
		stats[i].Session, levels[i].Mode = st, sweep.SessionsMode
	}
	p, err := fromParts("S", "ttft_p95 ≤ 1s", stats, levels, Options{PeakRPS: 10, Users: 30, Headroom: 0.75})
	if err != nil {
		t.Fatal(err)
	}
	sl := p.Level.Sessions
	if sl == nil || sl.Concurrent != 4 || sl.Measured != 16 || sl.TurnsMean != 4 || sl.PerSecond != 0.5 {
		t.Fatalf("sessions %+v, want 4 concurrent, 16 measured, 4 turns, 0.5 sessions/s", sl)
	}
	if p.Replicas != 7 || p.UserReplicas != 10 {
		t.Errorf("replicas %d, for 30 sessions %d; want 7 and 10", p.Replicas, p.UserReplicas)
	}
	var b strings.Builder
	if err := p.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"4 per replica; planned at C × h = 4 × 0.75 = 3 concurrent sessions",
		"4.0000 successful turns per session (over 16 sessions)",
		"X / turns = 2.0000 / 4.0000 = 0.5000 sessions/s per replica (43200 sessions/day)",
		"λ / turns = 10 / 4.0000 = 2.5000 sessions/s",
		"Replicas for N = 30 concurrent sessions",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	var js bytes.Buffer
	if err := p.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var got JSON
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := SessionsJSON{Concurrent: 4, PlannedConcurrent: 3, Measured: 16, TurnsMean: 4, PerSecond: 0.5, PerDay: 43200, PeakPerSecond: 2.5}
	if got.Level.Sessions == nil || *got.Level.Sessions != want {
		t.Errorf("plan.json sessions %+v, want %+v", got.Level.Sessions, want)
	}
	// A level without sessions says nothing about them.
	stats, levels = build([]lvl{{4, 2, time.Second, yes, false}})
	if p, err := fromParts("C", "", stats, levels, Options{PeakRPS: 10, Headroom: 0.75}); err != nil || p.Level.Sessions != nil {
		t.Errorf("closed loop: %v, sessions %+v", err, p.Level.Sessions)
	}
}

// Whether a level is sized in sessions is its mode's to say
// (sweep.LevelKey.RunsSessions), not whether its figures happen to hold
// sessions: a sessions level whose first repeat measured none is still
// answered in sessions, pooled over the repeat that measured 10 sessions
// of 5 turns (X = 2 turns/s: 0.4 sessions/s); a closed-loop level is never
// answered in sessions, whatever its figures hold.
func TestSessionFiguresFollowTheMode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode     string
		sessions []report.SessionStats // per repeat
		want     *SessionLevel
	}{
		{sweep.SessionsMode, []report.SessionStats{{}, {Sessions: 10, TurnsMean: 5}}, &SessionLevel{Concurrent: 4, Measured: 10, TurnsMean: 5, PerSecond: 0.4}},
		{sweep.ClosedMode, []report.SessionStats{{Sessions: 6, TurnsMean: 3}, {Sessions: 10, TurnsMean: 5}}, nil},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			stats, levels := build([]lvl{{4, 2, time.Second, yes, false}, {4, 2, time.Second, yes, false}})
			for i, st := range tc.sessions {
				stats[i].Session, stats[i].Repeat, levels[i].Mode, levels[i].Repeat = st, i, tc.mode, i
			}
			p, err := fromParts("S", "ttft_p95 ≤ 1s", stats, levels, Options{PeakRPS: 10, Headroom: 0.75})
			if err != nil {
				t.Fatal(err)
			}
			if p.Level.Repeats != 2 {
				t.Fatalf("level %s of %d repeats, want 2", p.Level.Key, p.Level.Repeats)
			}
			if sl := p.Level.Sessions; (sl == nil) != (tc.want == nil) || sl != nil && *sl != *tc.want {
				t.Errorf("sessions %+v, want %+v", sl, tc.want)
			}
			var b strings.Builder
			if err := p.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			var js bytes.Buffer
			if err := p.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			inText, inJSON := strings.Contains(b.String(), "In sessions"), strings.Contains(js.String(), `"sessions"`)
			if want := tc.want != nil; inText != want || inJSON != want {
				t.Errorf("in sessions: text %v, plan.json %v; want %v\n%s\n%s", inText, inJSON, want, b.String(), js.String())
			}
		})
	}
}
