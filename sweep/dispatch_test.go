package sweep

import (
	"context"
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
		rp.Speeds = []float64{1}
		cfg := Config{Mode: ReplayMode, ModeSpec: rp, Requests: 3, Prompt: func(int) client.Prompt { return client.Prompt{} }}
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
