package live

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// gate is a collector whose Collect, while armed, says it has begun and
// waits to be let go: a scrape held in the middle, on a real socket.
type gate struct {
	armed   atomic.Bool   // Collect blocks
	entered chan struct{} // a blocked Collect began
	release chan struct{} // closed: a blocked Collect returns
}

func (g *gate) Describe(chan<- *prometheus.Desc) {} // unchecked collector
func (g *gate) Collect(chan<- prometheus.Metric) {
	if g.armed.Load() {
		g.entered <- struct{}{}
		<-g.release
	}
}

// TestCloseWaitsForAScrapeBegunAfterIt: Close(true) keeps the endpoint up
// until a scrape that began after Close was called has finished, since
// only such a scrape reads the run's final figures. A scrape that began
// before Close and ends after it does not count. Before, Close waited for
// any scrape to finish after its call, so the held scrape below ended the
// wait with figures gathered before the end.
func TestCloseWaitsForAScrapeBegunAfterIt(t *testing.T) {
	m := New(Labels{RunID: "r", Shard: "0/1", Model: "m"}, func() float64 { return 0 })
	g := &gate{entered: make(chan struct{}), release: make(chan struct{})}
	m.reg.MustRegister(g)
	srv, err := serve(t, m)
	if err != nil {
		t.Fatal(err)
	}
	addr := srv.Addr().String()
	scrape(t, addr) // scraped before: Close will wait

	g.armed.Store(true)
	held := make(chan error, 1)
	go func() {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err == nil {
			resp.Body.Close()
		}
		held <- err
	}()
	<-g.entered // the held scrape has begun

	closed := make(chan error, 1)
	go func() { closed <- srv.Close(true) }()
	time.Sleep(100 * time.Millisecond) // Close is called and waiting
	g.armed.Store(false)               // later scrapes pass
	close(g.release)
	if err := <-held; err != nil {
		t.Fatalf("the held scrape: %v", err)
	}
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) when a scrape begun before it ended, want it to wait for one begun after", err)
	case <-time.After(300 * time.Millisecond):
	}

	final, _ := scrape(t, addr) // begun after Close: the final figures
	if final == "" {
		t.Error("the final scrape read nothing")
	}
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(FinalScrapeWait):
		t.Error("Close still waiting after the final scrape")
	}
}
