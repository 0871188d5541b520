package sweep_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
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
	return report.Summarize(sweep.Level{Rate: 1, Records: recs}, report.Settings{}).TTFTP99
}

// Coordinated omission, capped: a constant-rate level with at most two
// requests in flight, in front of a server that stalls. The requests that
// arrive during the stall wait in the client; their latency counts from
// their scheduled instant, so it includes that wait and the p99 reflects
// the stall. The same figures taken from the write miss it. In fake time
// (memServer, testing/synctest) the check is exact: a 2 s stall, every
// request scheduled in it (100 at 50 req/s) waits until its end; over
// real sockets (TestCoordinatedOmissionCappedOverHTTP, the HTTP client's
// own stamps) a 1 s stall at 100 req/s, with tolerances and up to three
// attempts, since a busy machine stretches any real-time schedule.
func TestCoordinatedOmissionCapped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &memServer{tokens: 3, gap: 2 * time.Millisecond, stallAt: 60, stall: 2 * time.Second, epoch: time.Now()}
		cfg := sweep.Config{Load: sweep.RateLoad([]float64{50}, 2, sweep.RateSpec{Arrival: sweep.Constant}), Requests: 300}
		for _, e := range checkCapped(t, runOpen(t, cfg, srv), srv.stall, 0, 100) {
			t.Error(e)
		}
	})
}

func TestCoordinatedOmissionCappedOverHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("a 2.5 s load")
	}
	t.Parallel()
	retry(t, func() []string {
		// 200 requests, so that the p99 from t_send is not one of the two
		// that met the stall themselves.
		srv := &stallServer{tokens: 3, gap: 2 * time.Millisecond, stallAt: 50, stall: time.Second}
		hs := httptest.NewServer(srv)
		defer hs.Close()
		cfg := sweep.Config{Load: sweep.RateLoad([]float64{100}, 2, sweep.RateSpec{Arrival: sweep.Constant}), Requests: 200}
		return checkCapped(t, runOpen(t, cfg, newClient(t, hs.URL)), srv.stall, 50*time.Millisecond, 60)
	})
}

// retry runs attempt up to three times, until it reports nothing wrong,
// and reports the last attempt's errors: a real-time schedule on a busy
// 2-core machine fails one attempt, not three.
func retry(t *testing.T, attempt func() []string) {
	t.Helper()
	var errs []string
	for i := 1; i <= 3; i++ {
		if errs = attempt(); len(errs) == 0 {
			return
		}
		t.Logf("attempt %d: %s", i, strings.Join(errs, "; "))
	}
	for _, e := range errs {
		t.Error(e)
	}
}

// checkCapped says what is wrong with a capped level that met a stall of
// about `stall`, nothing when all is well: at least minIn requests were
// scheduled in the stall, and each shows a TTFT from its scheduled
// instant of at least its wait until the stall's end, less slack (0 in
// fake time; over sockets the check window also ends 100 ms early).
func checkCapped(t *testing.T, l sweep.Level, stall, slack time.Duration, minIn int) []string {
	// The stall on the client's clock: the request that met it first.
	var stalled client.Record
	for _, r := range l.Records {
		if r.FirstToken-r.Start > stalled.FirstToken-stalled.Start {
			stalled = r
		}
	}
	from, to := stalled.Start, stalled.FirstToken
	if to-from < stall*9/10 || (slack == 0 && to-from != stall) {
		return []string{fmt.Sprintf("the stall lasted %v on the client's clock, want about %v", to-from, stall)}
	}
	end := to
	if slack > 0 {
		end = to - 100*time.Millisecond
	}
	var errs []string
	bad, n := latencyCheck(l.Records, report.RequestTTFT, from, end, slack)
	if n < minIn || bad != nil {
		msg := fmt.Sprintf("%d requests scheduled in the stall, want ≥ %d", n, minIn)
		if bad != nil {
			msg += fmt.Sprintf("; one shows TTFT %v from its scheduled instant (sched %v, stall ends %v)", report.RequestTTFT(bad), bad.Sched, to)
		}
		return []string{msg}
	}
	p99, p99send := ttftP99(l.Records), ttftP99(fromSend(l.Records))
	s := report.Summarize(l, report.Settings{})
	t.Logf("stall %v: %d requests scheduled in it; TTFT p99 %v from t_sched, %v from t_send; dispatch delay p50 %v p99 %v max %v; peak in flight %d",
		(to - from).Round(time.Millisecond), n, p99.Round(time.Millisecond), p99send.Round(time.Millisecond),
		s.DispatchDelayP50.Round(time.Millisecond), s.DispatchDelayP99.Round(time.Millisecond), s.DispatchDelayMax.Round(time.Millisecond), s.InflightPeak)
	if p99 < stall*3/4 || s.TTFTP99 != p99 {
		errs = append(errs, fmt.Sprintf("TTFT p99 %v (summary %v), want ≥ %v: the stall", p99, s.TTFTP99, stall*3/4))
	}
	if s.InflightPeak > 2 {
		errs = append(errs, fmt.Sprintf("peak in flight %d above the cap 2", s.InflightPeak))
	}
	// The check can fail: from t_send, the client's wait is omitted.
	if bad, _ := latencyCheck(l.Records, ttftFromSend, from, end, slack); bad == nil {
		errs = append(errs, "the check passes on figures taken from t_send: it cannot tell coordinated omission")
	}
	if p99send >= stall/2 {
		errs = append(errs, fmt.Sprintf("TTFT p99 from t_send %v: the check on p99 cannot fail", p99send))
	}
	return errs
}

// stallingClock is a Doer whose clock, read by the open loop's feeder to
// sleep until each arrival, stalls once for `stall` after `after`: the
// sender itself falls behind, as a client starved of CPU would. (The
// Doer's requests stamp their records with its own clock, not this one.)
type stallingClock struct {
	sweep.Doer
	after, stall time.Duration
	once         atomic.Bool
}

func (c *stallingClock) Now() time.Duration {
	now := c.Doer.Now()
	if now > c.after && c.once.CompareAndSwap(false, true) {
		time.Sleep(c.stall)
		now = c.Doer.Now()
	}
	return now
}

// Coordinated omission, uncapped: the sender falls behind by a stall; the
// requests it owed meanwhile go out late, and their dispatch delay is part
// of their latency. The level is flagged client-limited. In fake time
// (2 s behind, exact); over real sockets, 1 s behind with tolerances and
// up to three attempts.
func TestCoordinatedOmissionSenderBehind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &memServer{tokens: 3, gap: 2 * time.Millisecond, epoch: time.Now()}
		const stall = 2 * time.Second
		d := &stallingClock{Doer: srv, after: srv.Now() + time.Second, stall: stall}
		cfg := sweep.Config{Load: sweep.RateLoad([]float64{50}, 0, sweep.RateSpec{Arrival: sweep.Constant}), Requests: 200}
		for _, e := range checkBehind(t, runOpen(t, cfg, d), stall, 0, 99) {
			t.Error(e)
		}
	})
}

func TestCoordinatedOmissionSenderBehindOverHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("a 3 s load")
	}
	t.Parallel()
	retry(t, func() []string {
		const stall = time.Second
		hs := httptest.NewServer(&stallServer{tokens: 3, gap: 2 * time.Millisecond})
		defer hs.Close()
		cl := newClient(t, hs.URL)
		d := &stallingClock{Doer: cl, after: cl.Now() + time.Second, stall: stall}
		cfg := sweep.Config{Load: sweep.RateLoad([]float64{50}, 0, sweep.RateSpec{Arrival: sweep.Constant}), Requests: 100}
		return checkBehind(t, runOpen(t, cfg, d), stall, 50*time.Millisecond, 40)
	})
}

// checkBehind says what is wrong with an uncapped level whose sender fell
// `stall` behind, nothing when all is well (slack as in checkCapped).
func checkBehind(t *testing.T, l sweep.Level, stall, slack time.Duration, minIn int) []string {
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
		return []string{fmt.Sprintf("the sender fell %v behind, want about %v", to-from, stall)}
	}
	end := to
	if slack > 0 {
		end = to - 100*time.Millisecond
	}
	bad, n := latencyCheck(l.Records, report.RequestTTFT, from, end, slack)
	if n < minIn || bad != nil {
		msg := fmt.Sprintf("%d requests scheduled while the sender stalled, want ≥ %d", n, minIn)
		if bad != nil {
			msg += fmt.Sprintf("; one shows TTFT %v from its scheduled instant", report.RequestTTFT(bad))
		}
		return []string{msg}
	}
	s := report.Summarize(l, report.Settings{})
	p99send := ttftP99(fromSend(l.Records))
	t.Logf("sender %v behind: %d requests owed; TTFT p99 %v from t_sched, %v from t_send; dispatch delay p99 %v; client_limited %v (%s)",
		(to - from).Round(time.Millisecond), n, s.TTFTP99.Round(time.Millisecond), p99send.Round(time.Millisecond),
		s.DispatchDelayP99.Round(time.Millisecond), s.ClientLimited, s.ClientLimitedReason)
	var errs []string
	if s.TTFTP99 < stall*3/4 || s.DispatchDelayP99 < stall*3/4 {
		errs = append(errs, fmt.Sprintf("TTFT p99 %v, dispatch delay p99 %v: want both ≥ %v", s.TTFTP99, s.DispatchDelayP99, stall*3/4))
	}
	if !s.ClientLimited {
		errs = append(errs, fmt.Sprintf("a sender %v behind is not flagged client-limited", stall))
	}
	if bad, _ := latencyCheck(l.Records, ttftFromSend, from, end, slack); bad == nil {
		errs = append(errs, "the check passes on figures taken from t_send: it cannot tell coordinated omission")
	}
	// The bunch sent late loads the server at once, so its own time grows;
	// the omission still hides most of the stall.
	if p99send >= s.TTFTP99-stall/4 {
		errs = append(errs, fmt.Sprintf("TTFT p99 from t_send %v against %v from t_sched: the check on p99 cannot fail", p99send, s.TTFTP99))
	}
	return errs
}

// memServer is stallServer in memory, a Doer for tests in fake time
// (testing/synctest, where a real socket would not let time advance): a
// request's tokens come `gap` apart after it arrives; when its stallAt-th
// request arrives (1-based; 0: never), that request and every one arriving
// in the next `stall` get nothing until the stall is over. Its clock is
// the time since epoch.
type memServer struct {
	tokens  int
	gap     time.Duration
	stallAt int64
	stall   time.Duration
	epoch   time.Time
	n       atomic.Int64
	mu      sync.Mutex
	until   time.Duration
}

func (m *memServer) Now() time.Duration { return time.Since(m.epoch) }

func (m *memServer) Do(ctx context.Context, p client.Prompt) client.Record {
	r := client.Record{PromptID: p.ID, Start: m.Now(), Status: 200, FinishReason: "length", HasUsage: true, CompletionTokens: m.tokens}
	n := m.n.Add(1)
	m.mu.Lock()
	if n == m.stallAt {
		m.until = r.Start + m.stall
	}
	until := m.until
	m.mu.Unlock()
	for i := range m.tokens {
		wait := m.gap
		if i == 0 {
			wait = until - m.Now()
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			r.ErrorClass, r.Error, r.End = client.Canceled, "canceled", m.Now()
			return r
		}
		r.ChunkAt = append(r.ChunkAt, m.Now()-r.Start)
	}
	r.FirstToken, r.FirstContent = r.Start+r.ChunkAt[0], r.Start+r.ChunkAt[0]
	r.LastToken, r.End = r.Start+r.ChunkAt[len(r.ChunkAt)-1], m.Now()
	return r
}
