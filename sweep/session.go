package sweep

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"time"

	"github.com/toksweep/toksweep/client"
)

// Sessions makes every worker of a level a closed loop of multi-turn
// sessions instead of single requests. Each ticket is one turn, so
// Config.Requests counts turns and a level stays bounded by requests; a
// session cut by the end of the level's tickets just stops. A worker opens
// a session, sends its turns in order, each with the replies streamed so
// far in its history, and waits a think time between turns, idle (so the
// level's in-flight mean falls below C when the think time is not small
// against a turn's latency). A failed turn ends its session. Warm-up and
// measured tickets never share a session.
type Sessions struct {
	Open  func() Conversation // the next session's script
	Think Think               // the pause between turns
	Seed  int64               // seeds the think-time draws
}

// Conversation is an open session: how many turns it plans, and turn k's
// request (0-based) given the replies to turns 0..k-1.
type Conversation interface {
	Turns() int
	Prompt(k int, replies []string) client.Prompt
}

// Think is a think-time distribution: Mean, or a normal draw of Mean and
// Stddev truncated at 0. The zero Think is no pause.
type Think struct {
	Mean, Stddev time.Duration
}

// draw returns one think time.
func (t Think) draw(rng *rand.Rand) time.Duration {
	if t.Stddev <= 0 {
		return max(t.Mean, 0)
	}
	d := float64(t.Mean) + float64(t.Stddev)*rng.NormFloat64()
	return time.Duration(math.Max(d, 0))
}

// sessionWorker is one worker's state across its sessions.
type sessionWorker struct {
	conv    Conversation
	replies []string
	turn    int  // turns sent in conv
	id      int  // conv's Session number: its first ticket + 1
	warm    bool // conv runs on warm-up tickets
}

// workSessions is work for Config.Sessions: one closed-loop worker running
// sessions back to back. It returns its records and the worst issue lag,
// think time excluded.
func workSessions(ctx context.Context, cfg Config, d Doer, tk *tickets, ab *aborter, cancel func(), c, repeat, w int) ([]client.Record, time.Duration) {
	var recs []client.Record
	var lag, prevEnd time.Duration
	rng := rand.New(rand.NewPCG(uint64(cfg.Sessions.Seed), uint64(c)<<32^uint64(repeat)<<20^uint64(w)))
	var s sessionWorker
	for ctx.Err() == nil {
		if s.conv != nil && s.turn < s.conv.Turns() {
			if !sleep(ctx, cfg.Sessions.Think.draw(rng)) {
				break
			}
			prevEnd = d.Now() // the think time is not issue lag
		}
		seq, warm, ok := tk.take()
		if !ok {
			break
		}
		if s.conv == nil || s.turn >= s.conv.Turns() || warm != s.warm {
			s = sessionWorker{conv: cfg.Sessions.Open(), replies: s.replies[:0], id: seq + 1, warm: warm}
		}
		p := s.conv.Prompt(s.turn, s.replies)
		p.KeepReply = s.turn+1 < s.conv.Turns()
		rec := d.Do(ctx, p)
		rec.Concurrency, rec.Repeat, rec.Worker, rec.Seq, rec.Warmup = c, repeat, w, seq, warm
		rec.Session, rec.Turn = s.id, s.turn+1
		s.replies, rec.Reply = append(s.replies, rec.Reply), ""
		s.turn++
		if !rec.OK() {
			s.conv = nil // a failed turn ends its session
		}
		if rec.ErrorClass == client.Canceled && errors.Is(context.Cause(ctx), errDrained) {
			rec.Error = DrainedError
		}
		if prevEnd > 0 {
			lag = max(lag, rec.Start-prevEnd)
		}
		prevEnd = rec.End
		recs = append(recs, rec)
		if cfg.Observe != nil {
			cfg.Observe(rec)
		}
		if ab.see(&rec) {
			cancel()
		}
	}
	return recs, lag
}

// sleep waits d or until ctx ends, and reports whether it waited d.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
