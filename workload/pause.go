package workload

import "time"

// MeanPause is the mean pause before a turn of the sessions s opens, each
// turn counted once (a sub-session's turns too): the turn's tool wait
// where the dataset gives one ("wait_ms"), else think before every turn
// but a session's first, as the sweep pauses (sweep.SessionLoop). A
// sessions run's time estimate adds it to every request.
func (s *Sessions) MeanPause(think time.Duration) time.Duration {
	if s.synth != nil || len(s.convs) == 0 {
		if s.turns <= 1 {
			return 0
		}
		return think * time.Duration(s.turns-1) / time.Duration(s.turns)
	}
	var sum time.Duration
	var n int
	for _, c := range s.convs {
		d, k := pauses(c, s.turns, think)
		sum, n = sum+d, n+k
	}
	if n == 0 {
		return 0
	}
	return sum / time.Duration(n)
}

// pauses is the total pause before conversation c's turns (at most limit
// of its own, 0 meaning all; its sub-sessions' in full) and how many
// turns they are.
func pauses(c Conversation, limit int, think time.Duration) (time.Duration, int) {
	turns := len(c.Users)
	if limit > 0 {
		turns = min(turns, limit)
	}
	var sum time.Duration
	n := turns
	for k := range turns {
		switch {
		case k < len(c.Waits) && c.Waits[k] != NoWait:
			sum += c.Waits[k]
		case k > 0:
			sum += think
		}
		if k < len(c.Subs) {
			for _, sub := range c.Subs[k] {
				d, m := pauses(sub, 0, think)
				sum, n = sum+d, n+m
			}
		}
	}
	return sum, n
}
