package sweep_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// stallServer streams `tokens` chat chunks `gap` apart per request. When
// its stallAt-th request arrives (1-based; 0: never), it stalls: that
// request and every one arriving in the next `stall` send nothing until the
// stall is over.
type stallServer struct {
	tokens  int
	gap     time.Duration
	stallAt int64
	stall   time.Duration
	n       atomic.Int64
	mu      sync.Mutex
	until   time.Time
}

func (s *stallServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := s.n.Add(1)
	s.mu.Lock()
	if n == s.stallAt {
		s.until = time.Now().Add(s.stall)
	}
	until := s.until
	s.mu.Unlock()
	time.Sleep(time.Until(until))
	w.Header().Set("Content-Type", "text/event-stream")
	f := w.(http.Flusher)
	for i := range s.tokens {
		if i > 0 {
			time.Sleep(s.gap)
		}
		fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"t%d \"},\"finish_reason\":null}]}\n\n", i)
		f.Flush()
	}
	fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n")
	f.Flush()
}

func newClient(t *testing.T, url string) *client.Client {
	t.Helper()
	cl, err := client.New(client.Config{BaseURL: url + "/v1", Model: "m", MaxTokens: 4, RequestTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

func runOpen(t *testing.T, cfg sweep.Config, d sweep.Doer) sweep.Level {
	t.Helper()
	cfg.Prompt = sweep.Cycle([]client.Prompt{{Text: "hi"}})
	var lv []sweep.Level
	if err := sweep.Run(context.Background(), cfg, d, func(l sweep.Level) error { lv = append(lv, l); return nil }); err != nil {
		t.Fatal(err)
	}
	return lv[0]
}

// latencyCheck is the coordinated-omission check: every request scheduled
// during [from, to) must show a TTFT (as ttft takes it) of at least its
// wait until `to`, less `slack`; it returns the first request that does
// not, and how many were scheduled then.
func latencyCheck(recs []client.Record, ttft func(*client.Record) time.Duration, from, to, slack time.Duration) (bad *client.Record, n int) {
	for i := range recs {
		r := &recs[i]
		if r.Sched < from || r.Sched >= to {
			continue
		}
		n++
		if ttft(r) < to-r.Sched-slack && bad == nil {
			bad = r
		}
	}
	return bad, n
}

// ttftFromSend is TTFT counted from the write, FirstToken − Start.
func ttftFromSend(r *client.Record) time.Duration { return r.FirstToken - r.Start }

// fromSend is recs with their scheduled instants dropped, so that every
// figure counts from the write, as a load generator that omits the client
// wait would.
func fromSend(recs []client.Record) []client.Record {
	out := append([]client.Record(nil), recs...)
	for i := range out {
		out[i].Sched = 0
	}
	return out
}

func ttftP99(recs []client.Record) time.Duration {
	return report.Summarize(sweep.Level{Rate: 1, Records: recs}).TTFTP99
}

// Coordinated omission, capped: a constant 50 req/s level with at most two
// requests in flight, in front of a server that stalls 2 s. The requests
// that arrive during the stall wait in the client; their latency counts
// from their scheduled instant, so it includes that wait and the p99
// reflects the stall. The same figures taken from the write miss it.
func TestCoordinatedOmissionCapped(t *testing.T) {
	if testing.Short() {
		t.Skip("a 6 s load")
	}
	const stall = 2 * time.Second
	srv := &stallServer{tokens: 3, gap: 2 * time.Millisecond, stallAt: 60, stall: stall}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	cfg := sweep.Config{Rates: []float64{50}, Requests: 300, MaxConcurrency: 2, Rate: sweep.RateSpec{Arrival: sweep.Constant}}
	l := runOpen(t, cfg, newClient(t, hs.URL))
	// The stall on the client's clock: the request that met it first.
	var stalled client.Record
	for _, r := range l.Records {
		if r.FirstToken-r.Start > stalled.FirstToken-stalled.Start {
			stalled = r
		}
	}
	from, to := stalled.Start, stalled.FirstToken
	if to-from < stall*9/10 {
		t.Fatalf("the stall lasted %v on the client's clock, want about %v", to-from, stall)
	}
	bad, n := latencyCheck(l.Records, report.RequestTTFT, from, to-100*time.Millisecond, 50*time.Millisecond)
	if n < 50 || bad != nil {
		t.Fatalf("%d requests scheduled in the stall; one shows TTFT %v from its scheduled instant (sched %v, stall ends %v)",
			n, report.RequestTTFT(bad), bad.Sched, to)
	}
	p99, p99send := ttftP99(l.Records), ttftP99(fromSend(l.Records))
	s := report.Summarize(l)
	t.Logf("stall %v: %d requests scheduled in it; TTFT p99 %v from t_sched, %v from t_send; dispatch delay p50 %v p99 %v max %v; peak in flight %d",
		(to - from).Round(time.Millisecond), n, p99.Round(time.Millisecond), p99send.Round(time.Millisecond),
		s.DispatchDelayP50.Round(time.Millisecond), s.DispatchDelayP99.Round(time.Millisecond), s.DispatchDelayMax.Round(time.Millisecond), s.InflightPeak)
	if p99 < stall*3/4 || s.TTFTP99 != p99 {
		t.Errorf("TTFT p99 %v (summary %v), want ≥ %v: the stall", p99, s.TTFTP99, stall*3/4)
	}
	if s.InflightPeak > 2 {
		t.Errorf("peak in flight %d above the cap 2", s.InflightPeak)
	}
	// The check can fail: from t_send, the client's wait is omitted.
	if bad, _ := latencyCheck(l.Records, ttftFromSend, from, to-100*time.Millisecond, 50*time.Millisecond); bad == nil {
		t.Error("the check passes on figures taken from t_send: it cannot tell coordinated omission")
	}
	if p99send >= stall/2 {
		t.Errorf("TTFT p99 from t_send %v: the check on p99 cannot fail", p99send)
	}
}

// stallingClock is a Doer whose clock, read by the open loop's feeder to
// sleep until each arrival, stalls once for `stall` after `after`: the
// sender itself falls behind, as a client starved of CPU would.
type stallingClock struct {
	*client.Client
	after, stall time.Duration
	once         atomic.Bool
}

func (c *stallingClock) Now() time.Duration {
	now := c.Client.Now()
	if now > c.after && c.once.CompareAndSwap(false, true) {
		time.Sleep(c.stall)
		now = c.Client.Now()
	}
	return now
}

// Coordinated omission, uncapped: the sender falls 2 s behind; the requests
// it owed meanwhile go out late, and their dispatch delay is part of their
// latency. The level is flagged client-limited.
func TestCoordinatedOmissionSenderBehind(t *testing.T) {
	if testing.Short() {
		t.Skip("a 4 s load")
	}
	const stall = 2 * time.Second
	hs := httptest.NewServer(&stallServer{tokens: 3, gap: 2 * time.Millisecond})
	defer hs.Close()
	cl := newClient(t, hs.URL)
	d := &stallingClock{Client: cl, after: cl.Now() + time.Second, stall: stall}
	cfg := sweep.Config{Rates: []float64{50}, Requests: 200, Rate: sweep.RateSpec{Arrival: sweep.Constant}}
	l := runOpen(t, cfg, d)
	// The stall on the client's clock: from the first request sent more
	// than half the stall late to the moment the sender resumed (the first
	// of those to go out; the backlog then leaves as one burst).
	from, to := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	for _, r := range l.Records {
		if r.Start-r.Sched > stall/2 {
			from, to = min(from, r.Sched), min(to, r.Start)
		}
	}
	if to-from < stall*9/10 {
		t.Fatalf("the sender fell %v behind, want about %v", to-from, stall)
	}
	bad, n := latencyCheck(l.Records, report.RequestTTFT, from, to-100*time.Millisecond, 50*time.Millisecond)
	if n < 50 || bad != nil {
		t.Fatalf("%d requests scheduled while the sender stalled; one shows TTFT %v from its scheduled instant", n, report.RequestTTFT(bad))
	}
	s := report.Summarize(l)
	p99send := ttftP99(fromSend(l.Records))
	t.Logf("sender %v behind: %d requests owed; TTFT p99 %v from t_sched, %v from t_send; dispatch delay p99 %v; client_limited %v (%s)",
		(to - from).Round(time.Millisecond), n, s.TTFTP99.Round(time.Millisecond), p99send.Round(time.Millisecond),
		s.DispatchDelayP99.Round(time.Millisecond), s.ClientLimited, s.ClientLimitedReason)
	if s.TTFTP99 < stall*3/4 || s.DispatchDelayP99 < stall*3/4 {
		t.Errorf("TTFT p99 %v, dispatch delay p99 %v: want both ≥ %v", s.TTFTP99, s.DispatchDelayP99, stall*3/4)
	}
	if !s.ClientLimited {
		t.Error("a sender 2 s behind is not flagged client-limited")
	}
	if bad, _ := latencyCheck(l.Records, ttftFromSend, from, to-100*time.Millisecond, 50*time.Millisecond); bad == nil {
		t.Error("the check passes on figures taken from t_send: it cannot tell coordinated omission")
	}
	// The bunch sent late loads the server at once, so its own time grows;
	// the omission still hides most of the stall.
	if p99send >= s.TTFTP99-stall/4 {
		t.Errorf("TTFT p99 from t_send %v against %v from t_sched: the check on p99 cannot fail", p99send, s.TTFTP99)
	}
}
