package sweep

import (
	"context"
	"time"

	"github.com/toksweep/toksweep/client"
)

// Replay is a trace as the replay mode sends it (mode/replay; its levels
// run ReplayLoop): each level sends the trace's requests at their
// instants divided by the level's speed. A level is keyed by its speed
// (LevelKey.Load); its offered rate, speed × MeanRate, is a figure (Rate).
type Replay struct {
	Requests []ReplayRequest // in the trace's order (by At)
	// MeanRate is the trace's mean rate at speed 1 (requests per second,
	// over its span); it must be positive.
	MeanRate float64
	// Prompt is request i's prompt. Parent, for a turn of a session, is
	// its parent's turn as sent and streamed; nil otherwise. salt is the
	// level's (ReplayLoop's), for blocks unique to the level. It is
	// called from the senders' goroutines.
	Prompt func(i int, parent *ReplayTurn, salt uint64) client.Prompt
}

// ReplayRequest is one request of a trace as the replay schedules it.
type ReplayRequest struct {
	At time.Duration // its instant in the trace, at speed 1
	// Parent is the index in Requests of the turn this one follows (it is
	// sent no earlier than that turn's end); -1 when none.
	Parent int
	// Session and Turn place a session's turn in its records (as
	// Sessions does): the session's number (≥ 1) and the 1-based turn; 0
	// outside sessions.
	Session, Turn int
	// Input and Output are its lengths in the trace (tokens), stamped
	// into its record (client.Record.TraceInput, TraceOutput) for the
	// level's length errors; 0: not known.
	Input, Output int
}

// ReplayTurn is a sent turn a follow-up builds its history from.
type ReplayTurn struct {
	Prompt client.Prompt
	Reply  string // the content streamed
	Record client.Record
}

// Rate is the offered rate of a replay at speed.
func (r *Replay) Rate(speed float64) float64 { return speed * r.MeanRate }

// Measured is how many of the trace's requests a level measures: all but
// the warm-up, at most requests when that is set.
func (r *Replay) Measured(warmup, requests int) int {
	n := max(len(r.Requests)-warmup, 0)
	if requests > 0 {
		n = min(n, requests)
	}
	return n
}

// ReplayLoop is a replay level's arrival process at speed, its prompts
// built with salt. Request i is
// scheduled at start + At/speed (start as in OpenLoop); a turn with a
// parent, no earlier than the parent's end, which then is its scheduled
// instant. The feeder (feed) hands each request to a goroutine of its own
// ahead of its instant, which waits for the parent, builds the prompt and
// sends it at its instant under the level's cap (sender.sendAt); latency
// counts from the scheduled instant, so that a late send shows as
// dispatch delay.
func ReplayLoop(rp *Replay, speed float64, salt uint64) Arrivals {
	return ArrivalsFunc(func(ctx context.Context, snd Sender) {
		s := snd.(*sender) // follow-ups need the parent's reply, which only the sweep's sender keeps
		turns := make([]replayDone, len(rp.Requests))
		for i, rq := range rp.Requests {
			turns[i].done = make(chan struct{})
			if rq.Parent >= 0 && rq.Parent < i {
				turns[rq.Parent].wanted = true
			}
		}
		i := 0
		instants := func() (time.Duration, bool) {
			if i >= len(rp.Requests) {
				return 0, false
			}
			i++
			return time.Duration(float64(rp.Requests[i-1].At) / speed), true
		}
		feed(ctx, s, instants, func(t Ticket, i int, sched time.Duration) {
			defer close(turns[i].done)
			rq := rp.Requests[i]
			var parent *ReplayTurn
			if rq.Parent >= 0 && rq.Parent < i {
				select {
				case <-turns[rq.Parent].done:
				case <-ctx.Done():
					return
				}
				if parent = turns[rq.Parent].turn; parent != nil {
					sched = max(sched, parent.Record.End)
				}
			}
			p := rp.Prompt(i, parent, salt)
			p.KeepReply = turns[i].wanted
			rec, sent := s.sendAt(ctx, t, i, sched, p, tags{session: rq.Session, turn: rq.Turn, traceIn: rq.Input, traceOut: rq.Output})
			if sent && turns[i].wanted { // only a parent's turn is kept
				turns[i].turn = &ReplayTurn{Prompt: p, Reply: rec.Reply, Record: rec}
			}
		})
	})
}

// replayDone is a replay request's outcome, for its follow-ups: done is
// closed once turn is set (nil when it was never sent).
type replayDone struct {
	done   chan struct{}
	turn   *ReplayTurn
	wanted bool // a follow-up needs its reply
}
