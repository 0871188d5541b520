package workload

import (
	"testing"
	"time"
)

// The mean pause counts a tool wait where one is given, think before any
// other turn but a session's first, and a sub-session's turns as turns.
func TestMeanPause(t *testing.T) {
	ms := time.Millisecond
	think := 100 * ms
	agent := Conversation{Users: []string{"a", "b", "c"}, Waits: []time.Duration{NoWait, 800 * ms, NoWait},
		Subs: [][]Conversation{nil, {{Users: []string{"s1", "s2"}, Waits: []time.Duration{30 * ms, NoWait}}}}}
	plain := Conversation{Users: []string{"x", "y"}}
	for _, c := range []struct {
		name string
		s    *Sessions
		want time.Duration
	}{
		// agent: 0 + 800 + 100, its sub 30 + 100; plain: 0 + 100; 7 turns.
		{"replayed", &Sessions{convs: []Conversation{agent, plain}}, (800 + 100 + 30 + 100 + 100) * ms / 7},
		// capped at 2 turns: agent 0 + 800 and its sub 30 + 100; plain 0 + 100; 6 turns.
		{"capped", &Sessions{convs: []Conversation{agent, plain}, turns: 2}, (800 + 30 + 100 + 100) * ms / 6},
		{"synthetic", &Sessions{synth: &synthTurns{}, turns: 4}, 75 * ms},
		{"one turn", &Sessions{synth: &synthTurns{}, turns: 1}, 0},
	} {
		if got := c.s.MeanPause(think); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
