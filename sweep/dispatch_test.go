package sweep

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/toksweep/toksweep/client"
)

// A replay of fewer requests than its trace (--requests 3 of 6, instants
// 1 ms apart, well inside sendLead): the feeder hands the third over, finds
// no fourth ticket, and still sends the three at their instants, the level
// completed; none is dropped for being held when the tickets ran out.
func TestFeedSendsTheHeldWhenTicketsRunOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ms := time.Millisecond
		rp := &Replay{MeanRate: 1000, Prompt: func(i int, _ *ReplayTurn, _ uint64) client.Prompt { return client.Prompt{ID: i} }}
		for i := range 6 {
			rp.Requests = append(rp.Requests, ReplayRequest{At: time.Duration(i) * ms, Parent: -1})
		}
		cfg := Config{Load: ReplayLoad(rp, []float64{1}, 0), Requests: 3, Prompt: func(int) client.Prompt { return client.Prompt{} }}
		var lvl Level
		if err := Run(context.Background(), cfg, newFake(10*ms), func(l Level) error { lvl = l; return nil }); err != nil {
			t.Fatal(err)
		}
		if len(lvl.Records) != 3 || lvl.EndReason != Completed {
			t.Fatalf("%d records, %s; want 3, completed", len(lvl.Records), lvl.EndReason)
		}
		for i, r := range lvl.Records {
			if r.Sched-lvl.Records[0].Sched != time.Duration(i)*ms || r.Start != r.Sched {
				t.Errorf("request %d scheduled %v, sent %v after the first; want both %v", i, r.Sched-lvl.Records[0].Sched, r.Start-lvl.Records[0].Sched, time.Duration(i)*ms)
			}
		}
	})
}

// The feeder hands a request over (its goroutine starts and builds the
// prompt) sendLead before its instant, or earlier, so that no hand-over
// falls in the last handGuard before a held request's instant: a
// hand-over's timer that woke late would hold that gate. Instants 0, 20
// and 23 ms: the third's hand-over, due at 18 ms, is made at 16 ms.
func TestFeedHandsOverClearOfTheNextGate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ms := time.Millisecond
		at := []time.Duration{0, 20 * ms, 23 * ms, 40 * ms, 44 * ms, 45 * ms}
		f := newFake(ms)
		var built [6]time.Duration // on f's clock, as the records' instants
		rp := &Replay{MeanRate: 100, Prompt: func(i int, _ *ReplayTurn, _ uint64) client.Prompt {
			built[i] = f.Now()
			return client.Prompt{ID: i}
		}}
		for _, a := range at {
			rp.Requests = append(rp.Requests, ReplayRequest{At: a, Parent: -1})
		}
		cfg := Config{Load: ReplayLoad(rp, []float64{1}, 0), Prompt: func(int) client.Prompt { return client.Prompt{} }}
		var lvl Level
		if err := Run(context.Background(), cfg, f, func(l Level) error { lvl = l; return nil }); err != nil {
			t.Fatal(err)
		}
		sched := make([]time.Duration, len(at))
		for _, r := range lvl.Records {
			sched[r.PromptID] = r.Sched
		}
		for i := range at {
			if built[i] > sched[i]-sendLead {
				t.Errorf("request %d built %v before its instant, want at least %v", i, sched[i]-built[i], sendLead)
			}
			for j := range i {
				if built[i] > sched[j]-handGuard && built[i] < sched[j] {
					t.Errorf("request %d built %v before request %d's instant, within %v", i, sched[j]-built[i], j, handGuard)
				}
			}
		}
		if want := sched[1] - handGuard; built[2] != want {
			t.Errorf("request 2 built at %v, want %v (request 1's instant less %v)", built[2], want, handGuard)
		}
	})
}

// prepFake is a fakeDoer that is a Preparer (a real client's Prepare,
// which only builds, and the fake's round trip), and logs on its clock
// when each prompt was prepared and sent.
type prepFake struct {
	*fakeDoer
	cl             *client.Client // for Prepare: nothing listens at its URL, nothing is sent there
	mu             sync.Mutex
	prepared, sent map[int]time.Duration // by prompt id
	dos            int                   // Do calls: none, when the sweep prepares
}

func newPrepFake(t *testing.T, took time.Duration) *prepFake {
	cl, err := client.New(client.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return &prepFake{fakeDoer: newFake(took), cl: cl, prepared: map[int]time.Duration{}, sent: map[int]time.Duration{}}
}

func (f *prepFake) Prepare(ctx context.Context, p client.Prompt) *client.Prepared {
	f.mu.Lock()
	f.prepared[p.ID] = f.Now()
	f.mu.Unlock()
	return f.cl.Prepare(ctx, p)
}

func (f *prepFake) Send(ctx context.Context, pr *client.Prepared) client.Record {
	f.mu.Lock()
	f.sent[pr.Prompt().ID] = f.Now()
	f.mu.Unlock()
	return f.fakeDoer.Do(ctx, pr.Prompt())
}

func (f *prepFake) Do(ctx context.Context, p client.Prompt) client.Record {
	f.mu.Lock()
	f.dos++
	f.mu.Unlock()
	return f.fakeDoer.Do(ctx, p)
}

// A Doer that is a Preparer has each open-loop request built ahead of its
// instant, sendLead before it, and only sent (Send, never Do) at it: the
// record's Start is the instant itself on a fake clock.
func TestOpenLoopPreparesAheadOfTheInstant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ms := time.Millisecond
		f := newPrepFake(t, ms)
		rp := &Replay{MeanRate: 100, Prompt: func(i int, _ *ReplayTurn, _ uint64) client.Prompt { return client.Prompt{ID: i} }}
		for _, at := range []time.Duration{0, 10 * ms, 30 * ms, 31 * ms} {
			rp.Requests = append(rp.Requests, ReplayRequest{At: at, Parent: -1})
		}
		cfg := Config{Load: ReplayLoad(rp, []float64{1}, 0), Prompt: func(int) client.Prompt { return client.Prompt{} }}
		var lvl Level
		if err := Run(context.Background(), cfg, f, func(l Level) error { lvl = l; return nil }); err != nil {
			t.Fatal(err)
		}
		if len(lvl.Records) != len(rp.Requests) || f.dos != 0 {
			t.Fatalf("%d records, %d sent by Do; want %d, none", len(lvl.Records), f.dos, len(rp.Requests))
		}
		for _, r := range lvl.Records {
			id := r.PromptID
			if f.sent[id] != r.Sched || r.Start != r.Sched {
				t.Errorf("request %d sent at %v (started %v), want its instant %v", id, f.sent[id], r.Start, r.Sched)
			}
			if f.prepared[id] > r.Sched-sendLead {
				t.Errorf("request %d prepared %v before its instant, want at least %v", id, r.Sched-f.prepared[id], sendLead)
			}
		}
	})
}
