package sweep

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/toksweep/toksweep/client"
)

// Sessions makes every worker of a level a closed loop of multi-turn
// sessions instead of single requests (SessionLoop, the arrivals of the
// sessions mode, mode/sessions). Each ticket is one turn, so
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

// SessionLoop is the closed loop of multi-turn sessions at concurrency c:
// each of c workers runs sessions back to back, one turn per ticket, with
// the think time between turns. Think time is not issue lag. It is the
// engine's own (each turn needs the reply the sweep's sender keeps), and
// runs only under Run. A conversation that is an Agent brings its own
// waits and sub-sessions, whose turns draw tickets too: C bounds the
// sessions, not the requests in flight.
func SessionLoop(c int, ss *Sessions) Arrivals {
	return ArrivalsFunc(func(ctx context.Context, snd Sender) {
		s := snd.(*sender) // sessions need the reply, which only the sweep's sender keeps
		var wg sync.WaitGroup
		for w := range c {
			wg.Go(func() { s.sessions(ctx, ss, w) })
		}
		wg.Wait()
	})
}

// sessions is worker w of a SessionLoop: one session after another, each
// played by a sessionRun (session_agent.go).
func (s *sender) sessions(ctx context.Context, ss *Sessions, w int) {
	wk := &sessionWorker{s: s, ss: ss, w: w,
		rng: rand.New(rand.NewPCG(uint64(ss.Seed), uint64(s.spec.Concurrency)<<32^uint64(s.repeat)<<20^uint64(w)))}
	for ctx.Err() == nil {
		r := &sessionRun{wk: wk}
		r.play(ctx, ss.Open(), 0)
		if r.id == 0 { // no ticket left
			return
		}
	}
}

// MaxHeldReplies bounds the bytes of replies a session worker holds for
// its history: the oldest are dropped first. It is workload's
// MaxHistoryTokens × HistoryBytesPerToken, so that a dropped reply is
// always older than the history a turn sends.
const MaxHeldReplies = 1 << 20

// history is one conversation's replies so far, the oldest emptied
// beyond MaxHeldReplies.
type history struct {
	replies []string
	held    int // bytes of replies held
	dropped int // the oldest replies dropped (emptied) to bound held
}

// keep adds the reply to the history, dropping the oldest replies beyond
// MaxHeldReplies.
func (h *history) keep(reply string) {
	h.replies = append(h.replies, reply)
	h.held += len(reply)
	for h.held > MaxHeldReplies && h.dropped < len(h.replies) {
		h.held -= len(h.replies[h.dropped])
		h.replies[h.dropped] = ""
		h.dropped++
	}
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
