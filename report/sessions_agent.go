package report

import (
	"cmp"
	"slices"
	"time"
)

// LongHistoryShare is what makes a turn's prompt a long cached prefix
// (SessionStats.TTFTLongP50): at least this share of its bytes is history
// the session sent before, which a server's prefix cache can hold.
const LongHistoryShare = 0.8

// sessionTime splits one session's span (its turns' and its
// sub-sessions'): duration is the last End − the first Start; server is
// the time with at least one of its turns in flight (the union of the
// turns' Start–End); tool and think are the idle stretches that end at the
// Start of a turn sent after a tool wait or a think time. What remains
// (duration − server − tool − think) is the client's own gaps.
type sessionTime struct {
	duration, server, tool, think time.Duration
}

// timeOf is the sessionTime of a session's turns.
func timeOf(turns []*request) sessionTime {
	ts := slices.Clone(turns)
	slices.SortStableFunc(ts, func(a, b *request) int { return cmp.Compare(a.start, b.start) })
	var st sessionTime
	if len(ts) == 0 {
		return st
	}
	from, to := ts[0].start, ts[0].end
	first := from
	for _, r := range ts[1:] {
		if r.start > to { // an idle stretch, ended by r
			st.server += to - from
			gap := r.start - to
			switch {
			case r.toolWait > 0:
				st.tool += gap
			case r.think > 0:
				st.think += gap
			}
			from = r.start
		}
		to = max(to, r.end)
	}
	st.server += to - from
	st.duration = to - first
	return st
}

func (t *sessionTime) add(u sessionTime) {
	t.duration, t.server, t.tool, t.think = t.duration+u.duration, t.server+u.server, t.tool+u.tool, t.think+u.think
}

// shares sets st's shares of the sessions' summed time t.
func (t sessionTime) shares(st *SessionStats) {
	if t.duration <= 0 {
		return
	}
	d := float64(t.duration)
	st.ServerShare, st.ToolShare, st.PauseShare = float64(t.server)/d, float64(t.tool)/d, float64(t.think)/d
	st.ThinkShare = 1 - st.ServerShare
}
