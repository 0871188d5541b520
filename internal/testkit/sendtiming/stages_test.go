package sendtiming

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/toksweep/toksweep/sim/simtest"
	"github.com/toksweep/toksweep/workload/trace"
)

// A traced replay pairs every request with the simulator's stamp of it by
// connection: each is matched, its stages are in order (the round trip
// after its instant, the connection before the server's stamp), and the
// matched stamps are the simulator's, each once.
func TestStagesMatchEveryArrival(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(path, Mooncake(40, 200), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.ReadFile(path, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := simtest.NewServer(SimConfig(2 * time.Millisecond))
	defer srv.Close()
	lvl, epoch, tc, err := RunTraced(context.Background(), Replay(tr), 1, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	arrivals := srv.ArrivalsFrom()
	st := tc.Stages(lvl.Records, arrivals, epoch)
	if len(st) != len(tr.Requests) || len(arrivals) != len(tr.Requests) {
		t.Fatalf("%d stages and %d arrivals, want %d", len(st), len(arrivals), len(tr.Requests))
	}
	var got, want []time.Duration
	for i, s := range st {
		if !s.Matched {
			t.Fatalf("request %d (%v) not matched to an arrival", i, s)
		}
		if !(s.Sched > 0 && s.Sched <= s.Called && s.Called <= s.Start && s.Start <= s.GotConn &&
			s.GotConn <= s.WroteRequest && s.GotConn <= s.Arrived) {
			t.Errorf("request %d: stages out of order: %+v", i, s)
		}
		if i > 0 && s.Sched < st[i-1].Sched {
			t.Errorf("request %d scheduled at %v, before request %d", i, s.Sched, i-1)
		}
		got = append(got, s.Arrived)
	}
	for _, a := range arrivals {
		want = append(want, a.At.Sub(epoch))
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("matched arrivals %v, want the simulator's %v", got, want)
	}
}
