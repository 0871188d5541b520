package live

import (
	"context"
	"net"
	"testing"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/sweep"
)

// Metrics.Doer forwards sweep.Preparer where the wrapped Doer has it (the
// client), so that --listen does not make the sweep build requests after
// their instants, and a request sent through Send is counted as Do's is.
// A Doer without it is not given one.
func TestDoerForwardsPreparer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens: the request fails to connect, at once
	cl, err := client.New(client.Config{BaseURL: "http://" + addr + "/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	m := New(Labels{RunID: "r", Shard: "0/1", Model: "m"}, func() float64 { return 0 })
	m.LevelStarted(sweep.Level{Concurrency: 1}, 0)
	pd, ok := m.Doer(cl).(sweep.Preparer)
	if !ok {
		t.Fatal("Metrics.Doer(client) is not a sweep.Preparer")
	}
	ctx := context.Background()
	if r := pd.Send(ctx, pd.Prepare(ctx, client.Prompt{Text: "hi"})); r.ErrorClass != client.Connect {
		t.Errorf("sent to a closed port: %s, want %s", r.ErrorClass, client.Connect)
	}
	lv := m.cur.Load()
	if s, f, n := lv.started.Load(), lv.finished.Load(), m.inFlight.Load(); s != 1 || f != 1 || n != 0 {
		t.Errorf("started %d, finished %d, in flight %d; want 1, 1, 0", s, f, n)
	}
	if _, ok := m.Doer(&stubDoer{}).(sweep.Preparer); ok {
		t.Error("Metrics.Doer made a Preparer of a Doer that is none")
	}
}
