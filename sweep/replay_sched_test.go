package sweep

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/toksweep/toksweep/client"
)

// runReplay runs one replay level of rp at speed on fake time, each request
// taking took, and returns its records by request index.
func runReplay(t *testing.T, rp *Replay, speed float64, maxConc int, took time.Duration) map[int]client.Record {
	t.Helper()
	d := newFake(took)
	cfg := Config{Load: ReplayLoad(rp, []float64{speed}, maxConc), Prompt: func(int) client.Prompt { return client.Prompt{} }}
	got := map[int]client.Record{}
	err := Run(context.Background(), cfg, d, func(l Level) error {
		for _, r := range l.Records {
			got[r.Worker] = r
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// On fake time the replay keeps the trace's schedule exactly: request i is
// scheduled and sent at the level's start + At/speed; a follow-up at its
// parent's end when that is later; a cap of one in flight makes the others
// wait, and the wait is dispatch delay from the scheduled instant.
func TestReplaySchedule(t *testing.T) {
	ms := time.Millisecond
	rp := &Replay{MeanRate: 1, Requests: []ReplayRequest{
		{At: 0, Parent: -1}, {At: 100 * ms, Parent: -1}, {At: 150 * ms, Parent: 0, Session: 1, Turn: 2}, {At: 1000 * ms, Parent: -1},
	}}
	var (
		mu    sync.Mutex
		salts []uint64
	)
	rp.Prompt = func(i int, parent *ReplayTurn, salt uint64) client.Prompt {
		if (parent != nil) != (i == 2) {
			t.Errorf("request %d: parent %v", i, parent)
		}
		mu.Lock()
		salts = append(salts, salt)
		mu.Unlock()
		return client.Prompt{ID: i}
	}
	synctest.Test(t, func(t *testing.T) {
		got := runReplay(t, rp, 2, 0, 300*ms)
		start := got[0].Sched
		// Speed 2: 0, 50, 500 ms; request 2 (At 150 ms → 75) waits for
		// request 0's end at 300 ms.
		for i, want := range map[int]time.Duration{0: 0, 1: 50 * ms, 2: 300 * ms, 3: 500 * ms} {
			r := got[i]
			if r.Sched-start != want || r.Start != r.Sched {
				t.Errorf("request %d: scheduled %v, sent %v; want both %v", i, r.Sched-start, r.Start-start, want)
			}
		}
		if got[2].Session != 1 || got[2].Turn != 2 {
			t.Errorf("follow-up recorded as session %d turn %d", got[2].Session, got[2].Turn)
		}
		capped := runReplay(t, rp, 2, 1, 300*ms)
		start = capped[0].Sched
		// One in flight: request 1 (due at 50 ms) waits for 0's end at 300.
		if r := capped[1]; r.Sched-start != 50*ms || r.Start-start != 300*ms {
			t.Errorf("capped: request 1 scheduled %v, sent %v; want 50ms, 300ms", r.Sched-start, r.Start-start)
		}
	})
	if len(salts) != 8 || salts[0] != salts[3] || salts[0] == 0 {
		t.Errorf("salts %v: want one per level, the same within it", salts)
	}
}
