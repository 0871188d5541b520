package sim

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// stepLog records an engine's steps through its trace hook.
type stepLog struct {
	mu    sync.Mutex
	steps []stepTrace
}

func (l *stepLog) add(st stepTrace) {
	l.mu.Lock()
	l.steps = append(l.steps, st)
	l.mu.Unlock()
}

// of returns the steps that computed sq, in order.
func (l *stepLog) of(sq *seq) []stepTrace {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []stepTrace
	for _, st := range l.steps {
		if slices.ContainsFunc(st.seqs, func(s seqStep) bool { return s.sq == sq }) {
			out = append(out, st)
		}
	}
	return out
}

// emits returns the modelled times at which sq's chunks were sent: the ends
// of the steps that emitted for it.
func (l *stepLog) emits(sq *seq) []time.Time {
	var out []time.Time
	for _, st := range l.of(sq) {
		for _, s := range st.seqs {
			if s.sq == sq && s.emitted > 0 {
				out = append(out, st.end)
			}
		}
	}
	return out
}

// gaps returns the intervals between consecutive times.
func gaps(ts []time.Time) []time.Duration {
	var out []time.Duration
	for i := 1; i < len(ts); i++ {
		out = append(out, ts[i].Sub(ts[i-1]))
	}
	return out
}

// testEngine starts an engine on cfg (defaults filled, validated) with a
// step log, closed when the test ends.
func testEngine(t *testing.T, cfg Config) (*engine, *stepLog, *metrics) {
	t.Helper()
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	log, met := &stepLog{}, newMetrics()
	e := startEngine(cfg, met, log.add)
	t.Cleanup(e.close)
	return e, log, met
}

// textJob is a job for a plain-text prompt, hashed when caching is on.
func textJob(text string, caching bool, target int) job {
	ids := textIDs(text)
	j := job{promptTokens: len(ids), target: target, finish: "length"}
	if caching {
		j.hashes = blockHashes(ids)
	}
	return j
}

// submitAll submits the jobs in order.
func submitAll(t *testing.T, e *engine, jobs ...job) []*seq {
	t.Helper()
	out := make([]*seq, len(jobs))
	for i, j := range jobs {
		sq, err := e.submit(j)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = sq
	}
	return out
}

// wait blocks until every sequence has finished.
func wait(t *testing.T, sqs ...*seq) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for _, sq := range sqs {
		for {
			if n, done := sq.progress(); done {
				if n != sq.target {
					t.Fatalf("finished with %d tokens, want %d", n, sq.target)
				}
				break
			}
			select {
			case <-sq.notify:
			case <-deadline:
				t.Fatal("sequence did not finish in 30s")
			}
		}
	}
}

// words is a prompt of n distinct words.
func words(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "w%d ", i)
	}
	return b.String()
}

func kvTestConfig() Config {
	return Config{
		MaxModelLen:         4096,
		MaxNumSeqs:          4,
		PrefillTokensPerSec: 1e5, // 10µs a token
		DecodeBase:          time.Millisecond,
		DecodePerSeq:        50 * time.Microsecond,
		DecodePerCtxToken:   10 * time.Nanosecond,
	}
}

// ttftStep is the modelled prefill part of a lone request's TTFT: from the
// start of its first step to the end of the step that sent its first token.
func ttftStep(l *stepLog, sq *seq) time.Duration {
	return l.emits(sq)[0].Sub(l.of(sq)[0].start)
}

// A prompt sent again after the first request finished has its full blocks
// cached: its TTFT loses exactly their prefill, floor((P−1)/16)×16 tokens at
// the prefill rate, and its usage reports them. With the cache off the
// second TTFT equals the first.
func TestPrefixCacheShortensTTFT(t *testing.T) {
	prompt := words(1000) // 1300 tokens
	const P = 1300
	hit := (P - 1) / BlockSize * BlockSize // 1296: the last partial block and the last token are computed
	for _, caching := range []bool{true, false} {
		t.Run(fmt.Sprintf("caching=%v", caching), func(t *testing.T) {
			cfg := kvTestConfig()
			cfg.NoPrefixCaching = !caching
			e, log, met := testEngine(t, cfg)
			first := submitAll(t, e, textJob(prompt, caching, 4))[0]
			wait(t, first)
			second := submitAll(t, e, textJob(prompt, caching, 4))[0]
			wait(t, second)

			t1, t2 := ttftStep(log, first), ttftStep(log, second)
			wantHit := 0
			if caching {
				wantHit = hit
			}
			saved := time.Duration(float64(wantHit) * e.prefNs)
			t.Logf("TTFT prefill part: first %v, second %v (saved %v of %v)", t1, t2, t1-t2, time.Duration(P*e.prefNs))
			if d := (t1 - t2) - saved; d < -time.Microsecond || d > time.Microsecond {
				t.Errorf("second TTFT %v is %v below the first %v, want %v (%d cached tokens)", t2, t1-t2, t1, saved, wantHit)
			}
			if first.cachedTokens() != 0 || second.cachedTokens() != wantHit {
				t.Errorf("cached tokens %d then %d, want 0 then %d", first.cachedTokens(), second.cachedTokens(), wantHit)
			}
			met.mu.Lock()
			q, h := met.prefixQuery, met.prefixHits
			met.mu.Unlock()
			if wantQ := map[bool]int64{true: 2 * P, false: 0}[caching]; q != wantQ || h != int64(wantHit) {
				t.Errorf("prefix cache queries %d, hits %d; want %d, %d", q, h, wantQ, wantHit)
			}
		})
	}
}

// A shared opening is a shared prefix: the second prompt extends the first
// (the next turn of a conversation), so it hits the first one's full blocks.
func TestPrefixCacheHitsExtendedPrompt(t *testing.T) {
	e, _, _ := testEngine(t, kvTestConfig())
	first := submitAll(t, e, textJob(words(100), true, 2))[0] // 130 tokens: 8 full blocks
	wait(t, first)
	second := submitAll(t, e, textJob(words(300), true, 2))[0]
	wait(t, second)
	if got := second.cachedTokens(); got != 8*BlockSize {
		t.Errorf("extended prompt: %d cached tokens, want %d", got, 8*BlockSize)
	}
	other := submitAll(t, e, textJob("another opening "+words(100), true, 2))[0]
	wait(t, other)
	if got := other.cachedTokens(); got != 0 {
		t.Errorf("different opening: %d cached tokens, want 0", got)
	}
}

// preemptConfig has room for 16 blocks (256 tokens) while four requests of
// 32 prompt + 200 output tokens need 4×232 = 928 tokens at the end.
func preemptConfig(kvTokens int) Config {
	cfg := kvTestConfig()
	cfg.MaxModelLen, cfg.KVCacheTokens = 256, kvTokens
	cfg.PrefillTokensPerSec = 1e4 // 100µs a token, so a recompute stands out
	return cfg
}

// A KV capacity below C × context preempts: the newest running sequence
// loses its blocks and comes back later to prefill its prompt and output
// again, which shows as a pause in its stream of at least that recompute;
// every stream still completes. With room for C × context nothing is
// preempted.
func TestKVCapacityPreempts(t *testing.T) {
	const c, prompt, out = 4, 32, 200
	jobs := slices.Repeat([]job{{promptTokens: prompt, target: out, finish: "length"}}, c)
	t.Run("too small", func(t *testing.T) {
		e, log, met := testEngine(t, preemptConfig(256))
		sqs := submitAll(t, e, jobs...)
		wait(t, sqs...)
		if st := met.stats(); st.Preemptions == 0 {
			t.Fatalf("no preemptions with %d tokens of KV for %d×%d", 256, c, prompt+out)
		}
		decodeStep := time.Duration(e.baseNs + c*e.perSeqNs + c*(prompt+out)*e.perCtxNs) // the longest plain step
		spiked := 0
		for i, sq := range sqs {
			recompute := recomputed(log, sq)
			ts := log.emits(sq)
			if len(ts) != out { // one token per emitting step
				t.Fatalf("seq %d: %d emitting steps, want %d", i, len(ts), out)
			}
			longest := slices.Max(gaps(ts))
			t.Logf("seq %d: recomputed %d tokens, longest gap %v (plain step ≤ %v)", i, recompute, longest, decodeStep)
			if recompute > 0 {
				spiked++
				if min := time.Duration(float64(recompute) * e.prefNs); longest < min {
					t.Errorf("seq %d: longest gap %v, want at least its recompute %v", i, longest, min)
				}
			}
		}
		if spiked == 0 {
			t.Error("no sequence recomputed anything")
		}
		if n := recomputed(log, sqs[0]); n != 0 { // only the newest is preempted, never the oldest
			t.Errorf("the oldest sequence recomputed %d tokens", n)
		}
	})
	t.Run("room for all", func(t *testing.T) {
		e, _, met := testEngine(t, preemptConfig(c*blocksFor(prompt+out)*BlockSize))
		wait(t, submitAll(t, e, jobs...)...)
		if st := met.stats(); st.Preemptions != 0 {
			t.Errorf("%d preemptions with room for every sequence", st.Preemptions)
		}
	})
}

// recomputed is how many tokens sq prefilled after its first admission.
func recomputed(l *stepLog, sq *seq) int {
	n, firstDone := 0, false
	for _, st := range l.of(sq) {
		for _, s := range st.seqs {
			if s.sq != sq {
				continue
			}
			if firstDone {
				n += s.prefill
			}
			if s.emitted > 0 {
				firstDone = true
			}
		}
	}
	return n
}

// Chunked prefill: a 32000-token prompt that arrives while two streams
// decode stalls them for its whole prefill without a budget, and for about
// one chunk (the budget's worth of prefill plus a decode step) with one.
func TestChunkedPrefillBoundsStall(t *testing.T) {
	const long = 32000
	for _, budget := range []int{0, 512} {
		t.Run(fmt.Sprintf("budget=%d", budget), func(t *testing.T) {
			cfg := kvTestConfig()
			cfg.MaxModelLen, cfg.PrefillTokensPerSec, cfg.MaxNumBatchedTokens = 40000, 1e6, budget
			e, log, _ := testEngine(t, cfg)
			decoders := submitAll(t, e, job{promptTokens: 10, target: 200, finish: "length"},
				job{promptTokens: 10, target: 200, finish: "length"})
			for n, _ := decoders[1].progress(); n < 5; n, _ = decoders[1].progress() {
				<-decoders[1].notify
			}
			big := submitAll(t, e, job{promptTokens: long, target: 2, finish: "length"})[0]
			wait(t, append(decoders, big)...)

			whole := time.Duration(long * e.prefNs)
			steps := len(log.of(big)) - 1 // the last one decodes its second token
			for i, sq := range decoders {
				longest := slices.Max(gaps(log.emits(sq)))
				t.Logf("decoder %d: longest gap %v; the prompt took %d steps (whole prefill %v)", i, longest, steps, whole)
				if budget == 0 && longest < whole {
					t.Errorf("decoder %d: longest gap %v, want the whole prefill %v or more", i, longest, whole)
				}
				// One step: the budget minus the decoders' tokens as
				// prefill, plus a step of three sequences.
				bound := time.Duration(float64(budget)*e.prefNs+e.baseNs+3*e.perSeqNs+(long+400)*e.perCtxNs) + 10*time.Microsecond
				if budget > 0 && longest > bound {
					t.Errorf("decoder %d: longest gap %v, want at most one chunk's step %v", i, longest, bound)
				}
			}
			if wantSteps := max(1, (long+budget-3)/max(budget-2, 1)); budget > 0 && steps < wantSteps {
				t.Errorf("the long prompt was prefilled in %d steps, want at least %d chunks", steps, wantSteps)
			}
		})
	}
}

// In the engine, a cache of 16 blocks holds what the last requests left
// behind, and new requests evict the least recently used first, each
// request's tail first. A, B and C are 130-token prompts (8 full blocks)
// with one output token, 9 blocks each: B takes the 7 never-used blocks and
// A's last two; C takes the rest of A and B's last two. So B comes back with
// 7 cached blocks, and A with none.
func TestEngineEvictsLRU(t *testing.T) {
	cfg := kvTestConfig()
	cfg.MaxModelLen, cfg.KVCacheTokens = 256, 16*BlockSize
	e, _, _ := testEngine(t, cfg)
	a, b, c := words(100), "b "+words(99), "c "+words(99)
	for _, p := range []string{a, b, c} {
		wait(t, submitAll(t, e, textJob(p, true, 1))...)
	}
	again := submitAll(t, e, textJob(b, true, 1))[0]
	wait(t, again)
	if got := again.cachedTokens(); got != 7*BlockSize {
		t.Errorf("B again: %d cached tokens, want %d", got, 7*BlockSize)
	}
	again = submitAll(t, e, textJob(a, true, 1))[0]
	wait(t, again)
	if got := again.cachedTokens(); got != 0 {
		t.Errorf("A again: %d cached tokens, want 0 (least recently used, evicted)", got)
	}
}

// With short prompts the calibrated preset's steps are exactly the
// unchunked model's (sim/presets.go): the first step of a lone request
// lasts f + a, step k after it a + c×(k−1), where f = P/prefill rate,
// a = base + per_seq + c×P. A repeat of the prompt only loses the prefill of
// its cached blocks.
func TestPresetStepsUnchanged(t *testing.T) {
	cfg, err := Preset(kimiPreset)
	if err != nil {
		t.Fatal(err)
	}
	const scale = 0.02
	cfg.Jitter, cfg.TimeScale = 0, scale
	e, log, _ := testEngine(t, cfg)
	ids := chatMessageIDs([]string{"user"}, []string{EssayPrompt})
	const P, N = 36, 20
	if len(ids) != P {
		t.Fatalf("essay prompt: %d tokens, want %d", len(ids), P)
	}
	j := job{promptTokens: P, hashes: blockHashes(ids), target: N, finish: "length"}
	sec := func(v float64) time.Duration { return time.Duration(v * scale * 1e9) }
	c := sec(cfg.DecodePerCtxToken.Seconds())
	a := sec(cfg.DecodeBase.Seconds()+cfg.DecodePerSeq.Seconds()) + P*c
	for run, prefilled := range []int{P, P - 2*BlockSize} {
		sq := submitAll(t, e, j)[0]
		wait(t, sq)
		steps := log.of(sq)
		if len(steps) != N {
			t.Fatalf("run %d: %d steps, want %d", run+1, len(steps), N)
		}
		f := sec(float64(prefilled) / cfg.PrefillTokensPerSec)
		for k, st := range steps {
			want := a + time.Duration(k)*c
			if k == 0 {
				want += f
			}
			if d := st.end.Sub(st.start) - want; d < -2 || d > 2 {
				t.Errorf("run %d step %d: %v, want %v", run+1, k+1, st.end.Sub(st.start), want)
			}
		}
	}
}

// Every step of a concurrent run lasts what the step model says for the
// sequences in it: prefill×prefNs (+ PrefillBase with any prefill) + base + per_seq×B + per_ctx×ctx, with
// ctx each sequence's KV before the step plus its prefill chunk. Four
// streams with staggered arrivals and a budget small enough to chunk one
// prompt cover admission, chunking and decode.
func TestStepsFollowTheModel(t *testing.T) {
	cfg, err := Preset("default")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Jitter, cfg.TimeScale, cfg.MaxNumBatchedTokens, cfg.PrefillBase = 0, 0.05, 64, 2*time.Millisecond
	e, log, _ := testEngine(t, cfg)
	var sqs []*seq
	for i, p := range []int{36, 36, 200, 36} {
		sqs = append(sqs, submitAll(t, e, job{promptTokens: p, target: 30 + 5*i, finish: "length"})...)
		time.Sleep(2 * time.Millisecond)
	}
	wait(t, sqs...)
	kv, chunked := map[*seq]int{}, false
	log.mu.Lock()
	defer log.mu.Unlock()
	for i, st := range log.steps {
		prefill, ctx := 0, 0
		for _, s := range st.seqs {
			prefill += s.prefill
			ctx += kv[s.sq] + s.prefill
			kv[s.sq] += s.prefill + s.emitted
			chunked = chunked || (s.prefill > 0 && s.emitted == 0)
		}
		want := time.Duration(float64(prefill)*e.prefNs + e.baseNs + e.perSeqNs*float64(len(st.seqs)) + e.perCtxNs*float64(ctx))
		if prefill > 0 {
			want += time.Duration(float64(cfg.PrefillBase) * cfg.TimeScale)
		}
		if d := st.end.Sub(st.start) - want; d < -2 || d > 2 {
			t.Errorf("step %d (%d seqs, %d prefill tokens): %v, want %v", i, len(st.seqs), prefill, st.end.Sub(st.start), want)
		}
		if prefill > cfg.MaxNumBatchedTokens {
			t.Errorf("step %d prefilled %d tokens over a budget of %d", i, prefill, cfg.MaxNumBatchedTokens)
		}
	}
	if !chunked {
		t.Error("no prompt was prefilled in chunks")
	}
}
