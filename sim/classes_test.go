package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// classTestConfig is a small engine for the priority and adapter tests:
// no jitter, no prefix caching, no budget.
func classTestConfig() Config {
	return Config{
		MaxModelLen:         256,
		MaxNumSeqs:          2,
		PrefillTokensPerSec: 1e5,
		PrefillBase:         100 * time.Microsecond,
		DecodeBase:          time.Millisecond,
		DecodePerSeq:        50 * time.Microsecond,
		DecodePerCtxToken:   10 * time.Nanosecond,
		NoPrefixCaching:     true,
		Adapters:            []Adapter{{Name: "a", Cost: 1.25}, {Name: "b", Cost: 1.5}},
	}
}

// burstAfterFirstStep starts an engine on cfg whose first request (first)
// is alone in its first step; at the end of step k (on the scheduler
// goroutine, before the next step is planned) the jobs of bursts[k-1] are
// submitted in order, so the queue they form is the same on every run. It
// returns the bursts' sequences, in order, once all have finished.
func burstAfterFirstStep(t *testing.T, cfg Config, first job, bursts ...[]job) ([]*seq, *stepLog) {
	t.Helper()
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	var (
		log   = &stepLog{}
		mu    sync.Mutex
		sqs   []*seq
		ready = make(chan *engine, 1)
		e     *engine
		steps int
		errs  []error
		sent  = make(chan struct{}) // closed once the last burst is submitted
	)
	trace := func(st stepTrace) {
		log.add(st)
		mu.Lock()
		defer mu.Unlock()
		if e == nil {
			e = <-ready
		}
		if steps++; steps <= len(bursts) {
			for _, j := range bursts[steps-1] {
				sq, err := e.submit(j)
				errs = append(errs, err)
				sqs = append(sqs, sq)
			}
			if steps == len(bursts) {
				close(sent)
			}
		}
	}
	eng := startEngine(cfg, newMetrics(), trace)
	t.Cleanup(eng.close)
	ready <- eng
	lead, err := eng.submit(first)
	if err != nil {
		t.Fatal(err)
	}
	wait(t, lead)
	select {
	case <-sent:
	case <-time.After(30 * time.Second):
		t.Fatal("the engine stopped stepping before the last burst")
	}
	mu.Lock()
	got := slices.Clone(sqs)
	mu.Unlock()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	wait(t, got...)
	return got, log
}

// admissionOrder is the burst's indices in the order the step log first
// shows them computed.
func admissionOrder(log *stepLog, burst []*seq) []int {
	log.mu.Lock()
	defer log.mu.Unlock()
	var order []int
	for _, st := range log.steps {
		for _, s := range st.seqs {
			if i := slices.Index(burst, s.sq); i >= 0 && !slices.Contains(order, i) {
				order = append(order, i)
			}
		}
	}
	return order
}

// Two classes sent at once into a full batch: with priorities, the waiting
// queue admits every priority-0 request before any priority-1 one, first
// come first served within each, so each high request's TTFT (from the
// burst's arrival, the end of the first step, to its first token, on the
// engine's modelled clock) is below every low one's; with one priority
// the order is the arrival order, as before priorities existed.
func TestPriorityAdmitsLowerValuesFirst(t *testing.T) {
	t.Parallel()
	const n = 8 // alternately low (priority 1) and high (0): 0 is low
	for _, prioritized := range []bool{true, false} {
		t.Run(fmt.Sprintf("priorities=%v", prioritized), func(t *testing.T) {
			t.Parallel()
			var burst []job
			for i := range n {
				j := job{promptTokens: 16, target: 4, finish: "length"}
				if prioritized && i%2 == 0 {
					j.priority = 1
				}
				burst = append(burst, j)
			}
			lead := job{promptTokens: 16, target: 6, finish: "length"}
			sqs, log := burstAfterFirstStep(t, classTestConfig(), lead, burst)

			want := []int{0, 1, 2, 3, 4, 5, 6, 7}
			if prioritized {
				want = []int{1, 3, 5, 7, 0, 2, 4, 6}
			}
			if got := admissionOrder(log, sqs); !slices.Equal(got, want) {
				t.Fatalf("admitted in order %v, want %v", got, want)
			}
			if !prioritized {
				return
			}
			log.mu.Lock()
			arrived := log.steps[0].end
			log.mu.Unlock()
			var high, low []time.Duration
			for i, sq := range sqs {
				ttft := log.emits(sq)[0].Sub(arrived)
				if i%2 == 0 {
					low = append(low, ttft)
				} else {
					high = append(high, ttft)
				}
			}
			t.Logf("modelled TTFT from the burst: high %v, low %v", high, low)
			if slices.Max(high) >= slices.Min(low) {
				t.Errorf("the slowest high-priority TTFT %v is not below the quickest low one %v", slices.Max(high), slices.Min(low))
			}
		})
	}
}

// Preemption for want of KV blocks takes the lowest-priority running
// sequence, even one already planned into the step (it is taken back out),
// where FCFS takes the newest. The cache (5 blocks) holds two requests' 2
// blocks each and one more: when both need their third in one step, the
// first gets it and the second cannot.
func TestPriorityPreemptsTheLowest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		priorities [2]int
		victim     int // which of the two is preempted
	}{
		{"fcfs", [2]int{0, 0}, 1},
		{"first is low", [2]int{1, 0}, 0},
		{"second is low", [2]int{0, 1}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := classTestConfig()
			cfg.MaxModelLen, cfg.KVCacheTokens = 64, 5*BlockSize
			// The first (16 prompt tokens) is admitted a step before the
			// second (17): both need their third block in step 18, the
			// first at 16+17 tokens, the second at 17+16.
			first := job{promptTokens: 16, target: 40, finish: "length", priority: tc.priorities[0]}
			second := job{promptTokens: 17, target: 40, finish: "length", priority: tc.priorities[1]}
			lead := job{promptTokens: 1, target: 2, finish: "length"} // gone after the second step
			sqs, log := burstAfterFirstStep(t, cfg, lead, []job{first}, []job{second})
			if got := admissionOrder(log, sqs); !slices.Equal(got, []int{0, 1}) {
				t.Fatalf("admitted in order %v, want [0 1]", got)
			}
			emits := [2][]time.Time{log.emits(sqs[0]), log.emits(sqs[1])}
			keeper := 1 - tc.victim
			// The victim's prefill is computed again: its prefill steps
			// are two, the keeper's one.
			prefills := func(sq *seq) int {
				n := 0
				for _, st := range log.of(sq) {
					for _, s := range st.seqs {
						if s.sq == sq && s.prefill > 1 {
							n++
						}
					}
				}
				return n
			}
			if p, k := prefills(sqs[tc.victim]), prefills(sqs[keeper]); p != 2 || k != 1 {
				t.Errorf("prefill steps: victim %d, keeper %d; want 2 and 1", p, k)
			}
			if !emits[keeper][len(emits[keeper])-1].Before(emits[tc.victim][len(emits[tc.victim])-1]) {
				t.Errorf("request %d (preempted) finished before request %d", tc.victim, keeper)
			}
		})
	}
}

// The step time with adapters, on hand-made steps: the prefill tokens of
// each request cost its adapter's Cost, and the decode part grows by Cost−1
// once for each adapter in the step, however many of its requests run.
func TestAdapterStepDuration(t *testing.T) {
	t.Parallel()
	cfg := classTestConfig().withDefaults()
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	e := makeEngine(cfg, newMetrics(), nil)
	t.Cleanup(e.pace.stop)
	ca, cb := cfg.Adapters[0].Cost, cfg.Adapters[1].Cost
	prefNs := 1e9 / cfg.PrefillTokensPerSec
	decode := func(b, ctx int) float64 {
		return float64(cfg.DecodeBase) + float64(cfg.DecodePerSeq)*float64(b) + float64(cfg.DecodePerCtxToken)*float64(ctx)
	}
	// s is a sequence of adapter a (0: base) computing chunk prompt tokens
	// over computed already in its KV.
	s := func(a, computed, chunk int) *seq {
		return &seq{job: job{adapter: a}, computed: computed, chunk: chunk}
	}
	for _, tc := range []struct {
		name string
		step []*seq
		want float64 // ns
	}{
		{"base decode", []*seq{s(0, 100, 0)}, decode(1, 100)},
		{"adapter decode", []*seq{s(1, 100, 0)}, decode(1, 100) * ca},
		{"adapter prefill", []*seq{s(2, 0, 40)}, 40*prefNs*cb + float64(cfg.PrefillBase) + decode(1, 40)*cb},
		{"one adapter twice, base", []*seq{s(1, 100, 0), s(1, 50, 0), s(0, 70, 0)}, decode(3, 220) * ca},
		{"two adapters", []*seq{s(1, 100, 0), s(2, 50, 0), s(0, 0, 30)},
			(30*prefNs + float64(cfg.PrefillBase)) + decode(3, 180)*(1+(ca-1)+(cb-1))},
	} {
		e.stepped = tc.step
		got := e.stepDuration()
		if d := got - time.Duration(tc.want); d < -time.Nanosecond || d > time.Nanosecond {
			t.Errorf("%s: step %v, want %v", tc.name, got, time.Duration(tc.want))
		}
	}
	// Without adapters the step is the plain model's, bit for bit.
	e.stepped = []*seq{s(0, 100, 0), s(0, 0, 30)}
	plain := 30*prefNs + float64(cfg.DecodeBase) + float64(cfg.DecodePerSeq)*2 + float64(cfg.DecodePerCtxToken)*130 + float64(cfg.PrefillBase)
	if got := e.stepDuration(); got != time.Duration(plain) {
		t.Errorf("base-only step %v, want %v", got, time.Duration(plain))
	}
}

// A running adapter request's steps, through the engine: each lasts its
// Cost times the base model's same step (no prefill base: PrefillBase 0).
func TestAdapterRequestSteps(t *testing.T) {
	t.Parallel()
	cfg := classTestConfig()
	cfg.PrefillBase = 0
	e, log, _ := testEngine(t, cfg)
	base := submitAll(t, e, job{promptTokens: 20, target: 5, finish: "length"})[0]
	wait(t, base)
	ad := submitAll(t, e, job{promptTokens: 20, target: 5, finish: "length", adapter: 2})[0]
	wait(t, ad)
	b, a := log.of(base), log.of(ad)
	if len(b) != 5 || len(a) != 5 {
		t.Fatalf("steps: base %d, adapter %d; want 5 each", len(b), len(a))
	}
	cost := cfg.Adapters[1].Cost
	for k := range b {
		want := time.Duration(float64(b[k].end.Sub(b[k].start)) * cost)
		if d := a[k].end.Sub(a[k].start) - want; d < -2*time.Nanosecond || d > 2*time.Nanosecond {
			t.Errorf("step %d: adapter %v, want %g × base %v = %v", k, a[k].end.Sub(a[k].start), cost, b[k].end.Sub(b[k].start), want)
		}
	}
}

// The protocol: /v1/models lists the adapters with the base as parent, a
// request names an adapter or the base, an unknown model is vLLM's 404,
// and priority comes from the body or the x-priority header (which wins).
func TestAdaptersAndPriorityOverHTTP(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Adapters = []Adapter{{Name: "tenant-a", Cost: 1.2}, {Name: "tenant-b"}}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	url := httptestServer(t, s)

	resp, err := http.Get(url + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	m := decodeBody(t, resp)
	data, _ := m["data"].([]any)
	if len(data) != 3 {
		t.Fatalf("/v1/models lists %d models, want 3: %v", len(data), m)
	}
	for i, want := range []struct{ id, parent any }{{"test-model", nil}, {"tenant-a", "test-model"}, {"tenant-b", "test-model"}} {
		if id, parent := path(data, i, "id"), path(data, i, "parent"); id != want.id || parent != want.parent {
			t.Errorf("model %d: id %v parent %v, want %v and %v", i, id, parent, want.id, want.parent)
		}
	}
	if got := s.Config().Adapters[1].Cost; got != 1 {
		t.Errorf("an adapter without a cost costs %g, want 1", got)
	}

	for _, model := range []string{"test-model", "tenant-a", "tenant-b"} {
		body := chatBody("hi", 2)
		body["model"] = model
		m := decodeBody(t, post(t, context.Background(), url+"/v1/chat/completions", body))
		if m["model"] != model {
			t.Errorf("a request for %q is answered as %v", model, m["model"])
		}
	}
	body := chatBody("hi", 2)
	body["model"] = "tenant-c"
	resp = post(t, context.Background(), url+"/v1/chat/completions", body)
	m = decodeBody(t, resp)
	if resp.StatusCode != http.StatusNotFound || m["message"] != "The model `tenant-c` does not exist." || m["type"] != "NotFoundError" || m["object"] != "error" {
		t.Errorf("unknown model: %d %v, want vLLM's 404", resp.StatusCode, m)
	}

	for _, tc := range []struct {
		body   any // "priority" in the body, nil for none
		header string
		want   int
	}{
		{nil, "", 0}, {3, "", 3}, {nil, "-2", -2}, {3, " 7 ", 7},
	} {
		req := chatBody("hi", 2)
		if tc.body != nil {
			req["priority"] = tc.body
		}
		var g genRequest
		if err := decodeRequest(jsonBytes(t, req), &g); err != nil {
			t.Fatal(err)
		}
		h := http.Header{}
		if tc.header != "" {
			h.Set("x-priority", tc.header)
		}
		if aerr := headerPriority(h, &g); aerr != nil {
			t.Fatal(aerr)
		}
		p, aerr := s.plan(chatAPI, &g)
		if aerr != nil {
			t.Fatal(aerr)
		}
		if p.priority != tc.want {
			t.Errorf("body %v, header %q: priority %d, want %d", tc.body, tc.header, p.priority, tc.want)
		}
	}
	hreq, err := http.NewRequest(http.MethodPost, url+"/v1/chat/completions", jsonReader(chatBody("hi", 2)))
	if err != nil {
		t.Fatal(err)
	}
	hreq.Header.Set("X-Priority", "high")
	resp, err = http.DefaultClient.Do(hreq)
	if err != nil {
		t.Fatal(err)
	}
	if m := decodeBody(t, resp); resp.StatusCode != http.StatusBadRequest || !strings.Contains(fmt.Sprint(m["message"]), "x-priority") {
		t.Errorf("x-priority: high: %d %v, want a 400 naming the header", resp.StatusCode, m)
	}
}

// An adapter needs a name of its own and a cost of at least 1.
func TestAdapterConfigChecked(t *testing.T) {
	t.Parallel()
	for _, ads := range [][]Adapter{
		{{Name: ""}}, {{Name: "test-model"}}, {{Name: "a"}, {Name: "a"}}, {{Name: "a", Cost: 0.5}},
	} {
		cfg := testConfig()
		cfg.Adapters = ads
		if _, err := New(cfg); err == nil {
			t.Errorf("adapters %v accepted", ads)
		}
	}
}

// jsonBytes is v as JSON.
func jsonBytes(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
