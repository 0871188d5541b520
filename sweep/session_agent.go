package sweep

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// Agent is a Conversation of an agentic dataset: its turns may carry a
// tool wait of their own and start sub-sessions (workload's agentic
// JSONL; docs/guide.md, "Multi-turn sessions").
//
// Turn k is sent after turn k−1's reply, then every sub-session that reply
// started (Branch(k−1)) has ended, then turn k's wait: the dataset's
// (Wait), else for k > 0 a think-time draw. A sub-session is itself a
// Conversation, opened on the history through its parent's reply; its
// final reply goes to the parent (Join) for its next turn. The
// sub-sessions of one turn run one after another, or all at once when
// parallel.
type Agent interface {
	Conversation
	Wait(k int) (time.Duration, bool)
	Branch(k int, replies []string) (subs []Conversation, parallel bool)
	Join(k int, finals []string)
}

// Prefixed is a Conversation that says how much of the prompt it built
// last was history: the share of its bytes the session had sent before
// (Record.History).
type Prefixed interface {
	HistoryShare() float64
}

// sessionWorker is a SessionLoop worker's state across its sessions: the
// think-time draws, and tickets drawn by a session that could not use them
// (a warm-up session meeting the first measured ticket), for the next.
type sessionWorker struct {
	s  *sender
	ss *Sessions
	w  int

	mu      sync.Mutex
	rng     *rand.Rand
	pending []Ticket
}

// next is the worker's next ticket: one handed back first.
func (wk *sessionWorker) next() (Ticket, bool) {
	wk.mu.Lock()
	if n := len(wk.pending); n > 0 {
		t := wk.pending[0]
		wk.pending = wk.pending[1:]
		wk.mu.Unlock()
		return t, true
	}
	wk.mu.Unlock()
	return wk.s.Next()
}

func (wk *sessionWorker) giveBack(t Ticket) {
	wk.mu.Lock()
	wk.pending = append(wk.pending, t)
	wk.mu.Unlock()
}

func (wk *sessionWorker) think() time.Duration {
	wk.mu.Lock()
	defer wk.mu.Unlock()
	return wk.ss.Think.draw(wk.rng)
}

// sessionRun is one session: its own turns and its sub-sessions'. A failed
// turn anywhere ends it (no further turn of it is sent), as does the end
// of the level's tickets.
type sessionRun struct {
	wk       *sessionWorker
	mu       sync.Mutex
	id       int  // Record.Session: its first ticket + 1, once drawn
	warm     bool // it runs on warm-up tickets
	branches atomic.Int32
	ended    atomic.Bool
}

// turnTags are a session turn's tags beyond its session and turn.
type turnTags struct {
	branch      int
	tool, think time.Duration
	history     float64
}

// ticket draws the ticket of the session's next turn, or ends the session:
// when none is left, or when it is of the other kind (warm-up, measured)
// than the session's first, which goes back to the worker.
func (r *sessionRun) ticket() (Ticket, bool) {
	t, ok := r.wk.next()
	if !ok {
		r.ended.Store(true)
		return t, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.id == 0:
		r.id, r.warm = t.Seq+1, t.Warmup
	case t.Warmup != r.warm:
		r.wk.giveBack(t)
		r.ended.Store(true)
		return t, false
	}
	return t, true
}

// play sends conv's turns in order as sub-session branch of the session
// (0: its own), and returns the last turn's reply; ok is false when the
// session ended first.
func (r *sessionRun) play(ctx context.Context, conv Conversation, branch int) (final string, ok bool) {
	ag, _ := conv.(Agent)
	var h history
	n := conv.Turns()
	for k := range n {
		var tg turnTags
		tg.branch = branch
		if d, given := waitOf(ag, k); given {
			tg.tool = d
		} else if k > 0 {
			tg.think = r.wk.think()
		}
		if d := tg.tool + tg.think; d > 0 {
			if !sleep(ctx, d) {
				return "", false
			}
			r.wk.s.rest(r.wk.w)
		}
		if r.ended.Load() || ctx.Err() != nil {
			return "", false
		}
		t, ok := r.ticket()
		if !ok {
			return "", false
		}
		p := conv.Prompt(k, h.replies)
		p.KeepReply = k+1 < n || branch > 0 || ag != nil
		if pf, ok := conv.(Prefixed); ok {
			tg.history = pf.HistoryShare()
		}
		rec := r.wk.s.do(ctx, t, r.wk.w, 0, p, tags{session: r.id, turn: k + 1, sess: tg})
		if !rec.OK() {
			r.ended.Store(true)
			return "", false
		}
		h.keep(rec.Reply)
		if ag != nil {
			if subs, parallel := ag.Branch(k, h.replies); len(subs) > 0 {
				finals, ok := r.fork(ctx, subs, parallel)
				if !ok {
					return "", false
				}
				ag.Join(k, finals)
			}
		}
		final = rec.Reply
	}
	return final, true
}

// fork plays subs, one after another or all at once, and returns their
// final replies in order.
func (r *sessionRun) fork(ctx context.Context, subs []Conversation, parallel bool) ([]string, bool) {
	finals := make([]string, len(subs))
	oks := make([]bool, len(subs))
	var wg sync.WaitGroup
	for i, sub := range subs {
		b := int(r.branches.Add(1))
		if !parallel {
			if finals[i], oks[i] = r.play(ctx, sub, b); !oks[i] {
				return nil, false
			}
			continue
		}
		wg.Go(func() { finals[i], oks[i] = r.play(ctx, sub, b) })
	}
	wg.Wait()
	for _, ok := range oks {
		if !ok {
			return nil, false
		}
	}
	return finals, true
}

// waitOf is turn k's wait from the dataset, if ag gives one.
func waitOf(ag Agent, k int) (time.Duration, bool) {
	if ag == nil {
		return 0, false
	}
	return ag.Wait(k)
}
