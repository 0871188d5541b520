package sendtiming

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http/httptrace"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/internal/pct"
	"github.com/toksweep/toksweep/mode/replay"
	"github.com/toksweep/toksweep/sim"
	"github.com/toksweep/toksweep/sweep"
	"github.com/toksweep/toksweep/workload/trace"
)

// Mooncake is an n-request Mooncake-format trace (JSONL) of about rate
// requests per second: every prompt opens with block 0 (a system prompt),
// most go on with the first blocks of one of 12 documents, and end in
// blocks of their own; outputs are 2 to 6 tokens. The same n and rate
// always give the same trace.
func Mooncake(n int, rate float64) []byte {
	rng := rand.New(rand.NewPCG(22, 300))
	docs := make([][]int64, 12)
	next := int64(1)
	for d := range docs {
		for range 4 {
			docs[d] = append(docs[d], next)
			next++
		}
	}
	var b strings.Builder
	at := 0.0
	for range n {
		in := 600 + rng.IntN(2400)
		blocks := (in + 511) / 512
		ids := []int64{0}
		if rng.IntN(4) > 0 {
			ids = append(ids, docs[rng.IntN(len(docs))][:1+rng.IntN(3)]...)
		}
		for len(ids) < blocks {
			ids = append(ids, next)
			next++
		}
		ids = ids[:blocks]
		fmt.Fprintf(&b, `{"timestamp": %d, "input_length": %d, "output_length": %d, "hash_ids": %s}`+"\n",
			int(at), in, 2+rng.IntN(5), strings.ReplaceAll(fmt.Sprint(ids), " ", ", "))
		at += rng.ExpFloat64() * 1000 / rate
	}
	return []byte(b.String())
}

// Replay is the sweep's Replay of a trace with token-id prompts.
func Replay(tr *trace.Trace) *sweep.Replay {
	s := trace.Summarize(tr)
	rp := &sweep.Replay{MeanRate: s.MeanRate}
	for _, r := range tr.Requests {
		rp.Requests = append(rp.Requests, sweep.ReplayRequest{At: r.At, Parent: -1})
	}
	rp.Prompt = func(i int, _ *sweep.ReplayTurn, salt uint64) client.Prompt {
		b := trace.Prompts{BlockSize: tr.BlockSize, Salt: salt, TokenIDs: true}
		return b.Prompt(&tr.Requests[i])
	}
	return rp
}

// SimConfig is the simulator the replay is measured against: a decode
// step of step, room for every request at once (512 sequences, a KV cache
// of 2M tokens), a prefill too fast to matter, arrival stamps kept, and
// each event stamped with its send time as serve-sim's are (the presets'
// StampSendTime), so that in and out of process it is the same simulator
// (app's TestServeSimArgsAreSimConfig).
func SimConfig(step time.Duration) sim.Config {
	return sim.Config{Model: "m", MaxModelLen: 4096, MaxNumSeqs: 512, KVCacheTokens: 2 << 20,
		PrefillTokensPerSec: 1e8, DecodeBase: step, StampSendTime: true, RecordArrivals: true}
}

// ServeSimArgs are the toksweep serve-sim arguments for SimConfig(step)
// on addr: the fast preset, whose per-sequence, per-token and chunking
// costs are set to SimConfig's zero, with --record-arrivals.
func ServeSimArgs(addr string, step time.Duration) []string {
	c := SimConfig(step)
	return []string{"serve-sim", "--addr", addr, "--preset", "fast", "--model", c.Model,
		"--max-model-len", fmt.Sprint(c.MaxModelLen), "--max-num-seqs", fmt.Sprint(c.MaxNumSeqs),
		"--kv-cache-tokens", fmt.Sprint(c.KVCacheTokens), "--prefill-rate", fmt.Sprint(c.PrefillTokensPerSec),
		"--decode-base", c.DecodeBase.String(), "--decode-per-seq", "0s", "--decode-per-ctx-token", "0s",
		"--max-num-batched-tokens", "0", "--record-arrivals"}
}

// RunLevel replays rp at speed (one level) against the server at baseURL
// (http://HOST:PORT) with the completions API and returns the level and
// the client's epoch, which its records' offsets count from.
func RunLevel(ctx context.Context, rp *sweep.Replay, speed float64, baseURL string) (sweep.Level, time.Time, error) {
	lvl, epoch, _, err := runLevel(ctx, rp, speed, baseURL, false)
	return lvl, epoch, err
}

// RunTraced is RunLevel with each request's stages traced (Tracer).
func RunTraced(ctx context.Context, rp *sweep.Replay, speed float64, baseURL string) (sweep.Level, time.Time, *Tracer, error) {
	return runLevel(ctx, rp, speed, baseURL, true)
}

func runLevel(ctx context.Context, rp *sweep.Replay, speed float64, baseURL string, traced bool) (sweep.Level, time.Time, *Tracer, error) {
	var lvl sweep.Level
	cl, err := client.New(client.Config{BaseURL: baseURL + "/v1", Model: "m", API: client.Completions, RequestTimeout: 30 * time.Second, MaxConns: 512})
	if err != nil {
		return lvl, time.Time{}, nil, err
	}
	cfg := sweep.Config{Load: &replay.Load{Trace: rp, Speeds: []float64{speed}}, Prompt: func(int) client.Prompt { return client.Prompt{} }}
	var d sweep.Doer = cl
	var tr *Tracer
	if traced {
		tr = NewTracer(cl)
		d = tr
	}
	err = sweep.Run(ctx, cfg, d, func(l sweep.Level) error { lvl = l; return nil })
	return lvl, cl.Epoch(), tr, err
}

// Timing is how well one replay level kept its schedule, on the client's
// clock (client.Client.Epoch plus each record's offsets).
//
//   - Dispatch is each record's Start − Sched: how late the client began
//     the request (what levels.csv's dispatch delay is made of).
//   - Arrival is the k-th of the simulator's arrival stamps (when a
//     request reached its handler, sim.Config.RecordArrivals) less the
//     k-th scheduled instant, both in order: how late the request reached
//     the server, loopback transit included. A negative one was early.
type Timing struct {
	Dispatch, Arrival []time.Duration // sorted
	// Transit is the k-th arrival less the k-th recorded Start: the
	// client's own path from Start to the server's handler.
	Transit []time.Duration // sorted
}

// Of reads a level's records and the simulator's arrival stamps against
// the client's epoch. In one process the stamps and the epoch carry
// monotonic readings and are compared on that clock; stamps read from
// another process (serve-sim's GET /debug/arrivals, wall-clock UnixNano)
// have none, and time.Time.Sub compares them with the epoch's wall
// reading: both processes read the same system clock.
//
// Each of the three lists is sorted before the k-th are paired: arrivals
// (sim.Server.Arrivals sorts them), scheduled instants and starts (records
// are kept in order of their ends). Paired so, the k-th arrival is before
// the k-th instant only if some request reached the server before its own
// instant: the k+1 earliest arrivals are k+1 requests, all scheduled no
// later than their arrivals.
func Of(recs []client.Record, arrivals []time.Time, epoch time.Time) Timing {
	var st Timing
	sched := make([]time.Duration, 0, len(recs))
	starts := make([]time.Duration, 0, len(recs))
	for _, r := range recs {
		st.Dispatch = append(st.Dispatch, r.Start-r.Sched)
		sched = append(sched, r.Sched)
		starts = append(starts, r.Start)
	}
	slices.Sort(st.Dispatch)
	slices.Sort(sched)
	slices.Sort(starts)
	for k := range min(len(arrivals), len(sched)) {
		at := arrivals[k].Sub(epoch)
		st.Arrival = append(st.Arrival, at-sched[k])
		st.Transit = append(st.Transit, at-starts[k])
	}
	slices.Sort(st.Arrival)
	slices.Sort(st.Transit)
	return st
}

// P is the nearest-rank percentile q of sorted d (pct.Rank), 0 for none.
func P(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[pct.Rank(len(d), q)-1]
}

// OffBy counts the arrivals more than tol from their scheduled instant,
// early or late.
func (st Timing) OffBy(tol time.Duration) int {
	n := 0
	for _, a := range st.Arrival {
		if a > tol || a < -tol {
			n++
		}
	}
	return n
}

// Worst is the arrival farthest from its instant, early or late, 0 for
// none.
func (st Timing) Worst() time.Duration {
	if len(st.Arrival) == 0 {
		return 0
	}
	return max(st.Arrival[len(st.Arrival)-1], -st.Arrival[0])
}

func (st Timing) String() string {
	if len(st.Arrival) == 0 {
		return fmt.Sprintf("dispatch delay p50 %v p99 %v max %v; no arrivals", P(st.Dispatch, 50), P(st.Dispatch, 99), P(st.Dispatch, 100))
	}
	return fmt.Sprintf("dispatch delay p50 %v p99 %v max %v; start to arrival p50 %v p99 %v; arrival − schedule min %v p50 %v p99 %v max %v, %d of %d more than 1 ms off",
		P(st.Dispatch, 50), P(st.Dispatch, 99), P(st.Dispatch, 100), P(st.Transit, 50), P(st.Transit, 99),
		st.Arrival[0], P(st.Arrival, 50), P(st.Arrival, 99), P(st.Arrival, 100), st.OffBy(time.Millisecond), len(st.Arrival))
}

// LoadAvg is the machine's 1-minute load average (/proc/loadavg), "?"
// where it cannot be read: every timing figure is reported beside it.
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b) + " ?")[0]
}

// Stage is one request's path from its instant to the server, on the
// client's clock: when the sweep called the Doer's Send (its gate opened
// and its goroutine ran), the record's Start, the
// httptrace stages of its round trip, and the server's arrival stamp of
// it, matched by connection (Stages).
type Stage struct {
	Sched, Called, Start, GotConn, WroteRequest time.Duration
	Local                                       string // the connection's local address
	Reused                                      bool   // an idle connection (false: dialled on the clock)
	Arrived                                     time.Duration
	Matched                                     bool // Arrived is the server's stamp of this request
}

// Tracer is a sweep.Doer around a client that records each request's
// Stage (httptrace), and forwards WarmConns and Prepare so that the level
// is warmed, and its requests built, as without it.
type Tracer struct {
	cl *client.Client
	mu sync.Mutex
	st []Stage // Sched unset: Stages fills it from the records
}

// NewTracer wraps cl.
func NewTracer(cl *client.Client) *Tracer { return &Tracer{cl: cl} }

func (t *Tracer) Now() time.Duration { return t.cl.Now() }

func (t *Tracer) WarmConns(ctx context.Context, n int) error { return t.cl.WarmConns(ctx, n) }

// Prepare is the client's (sweep.Preparer): the request is built before
// its instant, as without a Tracer.
func (t *Tracer) Prepare(ctx context.Context, p client.Prompt) *client.Prepared {
	return t.cl.Prepare(ctx, p)
}

func (t *Tracer) Do(ctx context.Context, p client.Prompt) client.Record {
	return t.Send(ctx, t.cl.Prepare(ctx, p))
}

// Send sends pr, tracing its stages.
func (t *Tracer) Send(ctx context.Context, pr *client.Prepared) client.Record {
	var mu sync.Mutex // the transport calls WroteRequest from its writing goroutine
	st := Stage{Called: t.cl.Now()}
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(i httptrace.GotConnInfo) {
			now := t.cl.Now()
			mu.Lock()
			defer mu.Unlock()
			st.GotConn, st.Reused = now, i.Reused
			st.Local = i.Conn.LocalAddr().String()
		},
		WroteRequest: func(httptrace.WroteRequestInfo) {
			now := t.cl.Now()
			mu.Lock()
			defer mu.Unlock()
			st.WroteRequest = now
		},
	})
	rec := t.cl.Send(ctx, pr)
	mu.Lock()
	st.Start = rec.Start
	s := st
	mu.Unlock()
	t.mu.Lock()
	t.st = append(t.st, s)
	t.mu.Unlock()
	return rec
}

// Stages pairs the traced requests with the level's records (by Start,
// for their Sched) and with the server's arrivals (by connection: the k-th
// request a connection carried is the k-th arrival from its address),
// arrivals read on the client's clock against epoch as in Of. They are
// returned in order of Sched.
func (t *Tracer) Stages(recs []client.Record, arrivals []sim.Arrival, epoch time.Time) []Stage {
	t.mu.Lock()
	st := slices.Clone(t.st)
	t.mu.Unlock()
	sched := make(map[time.Duration]time.Duration, len(recs))
	for _, r := range recs {
		sched[r.Start] = r.Sched
	}
	byConn := map[string][]int{}
	for i := range st {
		st[i].Sched = sched[st[i].Start]
		byConn[st[i].Local] = append(byConn[st[i].Local], i)
	}
	from := map[string][]time.Duration{}
	for _, a := range arrivals {
		from[a.RemoteAddr] = append(from[a.RemoteAddr], a.At.Sub(epoch))
	}
	for addr, idx := range byConn {
		slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(st[a].GotConn, st[b].GotConn) })
		at := from[addr]
		if addr == "" || len(at) != len(idx) {
			continue // not a request each: leave them unmatched
		}
		for k, i := range idx {
			st[i].Arrived, st[i].Matched = at[k], true
		}
	}
	slices.SortFunc(st, func(a, b Stage) int { return cmp.Compare(a.Sched, b.Sched) })
	return st
}

// Late is the stage that made s late: the longest of its gate and
// goroutine (Sched to Called), building (to Start), connection (to
// GotConn), writing (to WroteRequest) and the server's reading (to its
// arrival stamp).
func (s Stage) Late() (stage string, d time.Duration) {
	parts := []struct {
		name string
		d    time.Duration
	}{
		{"gate", s.Called - s.Sched}, {"build", s.Start - s.Called}, {"conn", s.GotConn - s.Start},
		{"write", s.WroteRequest - s.GotConn}, {"server", s.Arrived - s.WroteRequest},
	}
	for _, p := range parts {
		if p.d > d || stage == "" {
			stage, d = p.name, p.d
		}
	}
	return stage, d
}

func (s Stage) String() string {
	us := func(d time.Duration) string { return strconv.FormatInt(d.Microseconds(), 10) }
	return fmt.Sprintf("at %.3fs: gate %s, build %s, conn %s (reused %v), write %s, server %s µs: arrival %s µs after the instant",
		s.Sched.Seconds(), us(s.Called-s.Sched), us(s.Start-s.Called), us(s.GotConn-s.Start), s.Reused,
		us(s.WroteRequest-s.GotConn), us(s.Arrived-s.WroteRequest), us(s.Arrived-s.Sched))
}
