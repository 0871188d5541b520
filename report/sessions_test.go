package report

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
)

// turn builds a one-chunk successful turn of session id on worker w.
func turn(w, id, k int, start, ttft time.Duration, prompt int) client.Record {
	return with(stream(start, ttft, 0, 1), func(r *client.Record) {
		r.Worker, r.Session, r.Turn, r.PromptTokens = w, id, k, prompt
	})
}

// sessionLevel: session 1 runs three turns, session 5 fails at turn 2
// (timeout), a warm-up session and a single-turn request are left out.
func sessionLevel() []client.Record {
	return []client.Record{
		turn(0, 1, 1, 0, 400*msec, 100),
		turn(1, 5, 1, 0, 600*msec, 100),
		turn(0, 1, 2, 1*time.Second, 100*msec, 300),
		with(failed(client.Timeout, 1, 1*time.Second, 3*time.Second), func(r *client.Record) { r.Session, r.Turn = 5, 2 }),
		turn(0, 1, 3, 2*time.Second, 120*msec, 500),
		with(turn(2, 9, 1, 0, 50*msec, 900), func(r *client.Record) { r.Warmup = true }),
		stream(0, 70*msec, 0, 1), // not a session
	}
}

func TestSessionStats(t *testing.T) {
	st := Summarize(level(3, sessionLevel()...), Settings{}).Session
	for _, c := range []struct {
		name      string
		got, want time.Duration
	}{
		{"ttft turn 1 p50", st.TTFTTurn1P50, 400 * msec}, // nearest rank of {400, 600}
		{"ttft turn 1 p95", st.TTFTTurn1P95, 600 * msec},
		{"ttft later p50", st.TTFTLaterP50, 100 * msec}, // {100, 120}; the failed turn has no TTFT
		{"ttft later p95", st.TTFTLaterP95, 120 * msec},
		{"duration p50", st.DurationP50, 2120 * msec},     // session 1: 0 to 2s+120ms
		{"duration p95", st.DurationP95, 3 * time.Second}, // session 5: 0 to the timeout at 3s
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	// Think: session 1 waits 600 and 900 ms between turns of 400, 100 and
	// 120 ms; session 5 waits 400 ms between turns of 600 and 2000 ms.
	if want := 1900.0 / (1900 + 3220); math.Abs(st.ThinkShare-want) > 1e-12 {
		t.Errorf("think share %v, want 1900/(1900+3220) = %v", st.ThinkShare, want)
	}
	if st.PromptTokensTurn1Mean != 100 || st.PromptTokensLaterMean != 400 {
		t.Errorf("prompt tokens turn 1 %v, later %v; want 100 and (300+500)/2 = 400", st.PromptTokensTurn1Mean, st.PromptTokensLaterMean)
	}
	if st.Sessions != 2 || st.SessionsFailed != 1 || st.Failures.String() != "timeout=1" || st.TurnsMean != 2 {
		t.Errorf("sessions %d, failed %d (%s), turns mean %v; want 2, 1 (timeout=1), (3+1)/2 = 2",
			st.Sessions, st.SessionsFailed, st.Failures, st.TurnsMean)
	}
}

func TestSessionStatsNone(t *testing.T) {
	st := Summarize(level(1, stream(0, 70*msec, 0, 1)), Settings{}).Session
	if st.Sessions != 0 || st.TTFTTurn1P50 != NoSample || !math.IsNaN(st.TurnsMean) || st.Failures.String() != "" {
		t.Errorf("a level without sessions: %+v", st)
	}
	if notes := SessionNotes([]LevelStats{{Session: st}}); len(notes) != 0 {
		t.Errorf("notes without sessions: %q", notes)
	}
}

func TestSessionNotes(t *testing.T) {
	s := Summarize(level(3, sessionLevel()...), Settings{})
	s.Server = ServerStats{Scraped: true, PrefixHitRate: 0.625}
	var b strings.Builder
	if err := WriteConsole(&b, []LevelStats{s}); err != nil {
		t.Fatal(err)
	}
	want := "C=3: later turns: TTFT p50 100.0 ms vs turn 1 400.0 ms (prompt 400 vs 100 tokens), server prefix hits 62.5%; 2 sessions, 2.0 turns each, 1 failed (timeout=1)\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("console lacks\n%s\ngot\n%s", want, b.String())
	}
}

// TestThinkTimeIsNotClientLimit: workers idle by think time do not make
// the level client-limited; the same in-flight mean without it does.
func TestThinkTimeIsNotClientLimit(t *testing.T) {
	s := LevelStats{Concurrency: 4, InflightMean: 2, RequestsOK: 8, TTFTP50: NoSample, ITLP50: NoSample, ClientDelayP99: NoSample}
	s.Health.IssueLagMax = 50 * time.Millisecond // the corroborating lag
	if limited, _ := clientLimited(&s); !limited {
		t.Error("in-flight 2 of 4 without think time: want client-limited")
	}
	s.Session.ThinkShare = 0.5
	if limited, why := clientLimited(&s); limited {
		t.Errorf("in-flight 2 of 4 with half the sessions' time thinking: client-limited (%s)", why)
	}
}
