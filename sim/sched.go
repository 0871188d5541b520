package sim

import (
	"math"
	"slices"
	"time"
)

// The scheduler's step, after vLLM V1's: the running sequences first, in
// order, each taking one decode token or a chunk of its prefill from the
// step's token budget and the KV blocks it needs; a sequence that cannot get
// its blocks preempts the lowest-priority running one, the newest of those;
// then, if nobody was preempted, waiting requests in order (of priority,
// then arrival) while there are batch slots, budget and blocks.

// stepTrace is what one step did, for tests: its modelled start and end and
// the sequences it computed.
type stepTrace struct {
	start, end time.Time
	seqs       []seqStep
}

// seqStep is one sequence's share of a step.
type seqStep struct {
	sq      *seq
	prefill int // prompt (or recomputed) tokens computed
	emitted int // tokens sent at the end of the step
}

// schedule plans the step that starts at now into e.stepped.
func (e *engine) schedule(now time.Time) {
	budget := e.budget
	e.stepped = e.stepped[:0]
	preempted := false
	for i := 0; i < len(e.running) && budget > 0; {
		sq := e.running[i]
		e.plan(sq, budget)
		kept := true
		for !e.grow(sq) {
			v := e.victim()
			victim := e.running[v]
			if v < i { // already planned into this step: taken back out
				budget += max(victim.chunk, 1)
				e.stepped = slices.DeleteFunc(e.stepped, func(s *seq) bool { return s == victim })
				i--
			}
			e.running = slices.Delete(e.running, v, v+1)
			e.preempt(victim)
			preempted = true
			if victim == sq {
				kept = false
				break
			}
		}
		if kept {
			budget -= max(sq.chunk, 1)
			e.stepped = append(e.stepped, sq)
			i++
		}
	}
	if !preempted {
		e.admit(now, budget)
	}
	e.nRunning.Store(int64(len(e.running)))
	e.met.setKV(e.pool.usage())
}

// victim is the index of the running sequence to preempt: the one of the
// lowest priority (the highest value), the newest of those. With one
// priority it is the newest running sequence, as in vLLM's FCFS policy;
// vLLM's priority policy breaks the tie by arrival instead.
func (e *engine) victim() int {
	v := len(e.running) - 1
	for i := v - 1; i >= 0; i-- {
		if e.running[i].priority > e.running[v].priority {
			v = i
		}
	}
	return v
}

// plan sets what sq computes this step: the rest of its prefill (or as much
// of it as the budget allows), and the tokens it emits once its prefill is
// complete.
func (e *engine) plan(sq *seq, budget int) {
	sq.chunk = min(sq.length()-sq.computed, budget)
	sq.emitN, sq.accepted = 0, -1
	if sq.computed+sq.chunk == sq.length() {
		n := e.cfg.TokensPerChunk
		if e.cfg.DraftTokens > 0 && sq.produced > 0 { // a decode step: the drafter's tokens are verified
			sq.accepted = e.draft()
			n += sq.accepted
		}
		sq.emitN = min(n, sq.target-sq.produced)
	}
}

// draft is how many of a draft's DraftTokens tokens are accepted, each
// with probability DraftAcceptance.
func (e *engine) draft() int {
	a := 0
	for range e.cfg.DraftTokens {
		if e.drafter.Float64() < e.cfg.DraftAcceptance {
			a++
		}
	}
	return a
}

// grow gives sq the blocks its step needs; false when there are too few.
func (e *engine) grow(sq *seq) bool {
	need := blocksFor(sq.computed+sq.chunk+sq.emitN) - len(sq.blocks)
	if need <= 0 {
		return true
	}
	var ok bool
	sq.blocks, ok = e.pool.allocate(sq.blocks, need)
	return ok
}

// preempt evicts a running sequence in vLLM's recompute mode: its blocks are
// freed and it waits at the head of the queue (ahead of every request of
// its priority or a higher value), to prefill its prompt and the tokens it
// had generated again. Its stream just pauses.
func (e *engine) preempt(sq *seq) {
	e.pool.release(sq.blocks)
	sq.blocks, sq.computed, sq.nHashed, sq.chunk, sq.emitN = nil, 0, 0, 0, 0
	e.mu.Lock()
	i := 0
	for i < len(e.waiting) && e.waiting[i].priority < sq.priority {
		i++
	}
	e.waiting = slices.Insert(e.waiting, i, sq)
	e.mu.Unlock()
	e.met.preempted()
}

// admit moves waiting requests into the batch in the queue's order (first
// come first served within a priority) while there are slots, budget and blocks for their prompts beyond the
// cached prefix. A request that does not fit blocks those behind it.
func (e *engine) admit(now time.Time, budget int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for len(e.waiting) > 0 && len(e.running) < e.cfg.MaxNumSeqs && budget > 0 {
		sq := e.waiting[0]
		if sq.aborted.Load() {
			e.waiting = slices.Delete(e.waiting, 0, 1)
			continue
		}
		// Only full blocks are cached, and the last token is always
		// computed, so a prompt never hits in full.
		hit := e.pool.lookup(sq.hashes, (sq.length()-1)/BlockSize)
		sq.computed = len(hit) * BlockSize
		e.plan(sq, budget)
		need := blocksFor(sq.computed+sq.chunk+sq.emitN) - len(hit)
		if !e.pool.canTake(hit, need) {
			sq.computed = 0
			return
		}
		e.pool.take(hit)
		sq.blocks, _ = e.pool.allocate(hit, need)
		sq.nHashed = len(hit)
		e.waiting = slices.Delete(e.waiting, 0, 1)
		e.running = append(e.running, sq)
		e.stepped = append(e.stepped, sq)
		budget -= sq.chunk
		e.admitted(sq, now, len(hit)*BlockSize)
	}
}

// admitted counts an admission: the prefix cache's query and hits, and, the
// first time only, the queue wait and the prompt. now is the modelled start
// of the step, which can precede the arrival of a request that came in while
// the step was being planned: such a request is admitted at its arrival, so
// that its queue wait (arrival to admission) is never negative and its
// queue wait plus prefill (admission to first token) is its TTFT, on the
// one clock.
func (e *engine) admitted(sq *seq, now time.Time, hit int) {
	if e.pool.caching {
		e.met.prefixLookup(sq.length(), hit)
	}
	if !sq.scheduled.IsZero() {
		return // a preempted request coming back
	}
	if now.Before(sq.arrived) {
		now = sq.arrived
	}
	sq.scheduled, sq.hit = now, hit
	e.met.admitted(now.Sub(sq.arrived))
	e.met.addPrompt(sq.promptTokens)
}

// stepDuration is the modelled length of the planned step:
//
//	Σ cost×prefill×prefNs + [prefill > 0]×prefBase + (base + perSeq×B + perCtx×ctx)×(1 + Σ (cost−1))
//
// where prefill is each sequence's prompt tokens computed (cached ones cost
// nothing) and cost its adapter's (1 for the base model), B the sequences in
// the step, ctx the sum of their context (their KV after the step's prefill),
// and the last sum is over the adapters the step runs, each once; a
// StepCliff multiplies the whole past its KV size. With short
// prompts, no budget and no adapters this is the unchunked model's step
// exactly.
func (e *engine) stepDuration() time.Duration {
	prefill, ctx := 0, 0
	weighted, extra := 0.0, 0.0 // prefill tokens × their adapter's cost; the adapters' fractions
	for _, sq := range e.stepped {
		prefill += sq.chunk
		ctx += sq.computed + sq.chunk
		c := e.cost[sq.adapter]
		weighted += float64(sq.chunk) * c // exact for integers: with no adapters, float64(prefill)
		if sq.adapter > 0 && !e.inStep[sq.adapter] {
			e.inStep[sq.adapter], extra = true, extra+c-1
		}
	}
	clear(e.inStep)
	f := 1 + extra // 1 exactly without adapters: each term below is then what it was
	ns := weighted*e.prefNs + e.baseNs*f + e.perSeqNs*float64(len(e.stepped))*f + e.perCtxNs*float64(ctx)*f
	if prefill > 0 {
		ns += e.prefBaseNs
	}
	if f := e.cfg.StepCliff.scale(ctx); f != 1 {
		ns *= f
	}
	if j := e.cfg.Jitter; j > 0 {
		ns *= math.Max(0.1, 1+j*e.rng.NormFloat64())
	}
	return time.Duration(ns)
}

// emit ends a step: the planned prefill is done (its full prompt blocks
// join the prefix cache), every sequence past its prefill gets its next
// chunk, and those that reach their target leave the batch. Metrics and the
// batch are updated before any handler hears of the chunk, so a client that
// has its reply sees them already counted.
func (e *engine) emit(now, start, end time.Time) {
	tokens := 0
	for _, sq := range e.stepped {
		if sq.aborted.Load() {
			continue // its handler is gone; dropped below
		}
		sq.computed += sq.chunk + sq.emitN
		e.register(sq)
		if sq.accepted >= 0 {
			e.met.drafted(e.cfg.DraftTokens, sq.accepted)
		}
		if sq.emitN > 0 && sq.produced == 0 {
			sq.firstAt = now
			e.met.firstToken(now.Sub(sq.arrived), now.Sub(sq.scheduled))
		}
		sq.produced += sq.emitN
		tokens += sq.emitN
		if sq.emitN > 0 && sq.produced >= sq.target {
			e.met.finished(sq.finish)
		}
	}
	e.met.addGenerated(tokens)
	e.met.stepped(start, end, len(e.stepped))
	if e.trace != nil {
		e.trace(e.traceStep(start, end))
	}
	e.leave(func(sq *seq) bool { return sq.produced >= sq.target || sq.aborted.Load() })
	for _, sq := range e.stepped {
		if sq.emitN == 0 {
			continue // mid-prefill: nothing to tell
		}
		sq.mu.Lock()
		sq.generated, sq.done, sq.cached = sq.produced, sq.produced >= sq.target, sq.hit
		sq.mu.Unlock()
		select {
		case sq.notify <- struct{}{}:
		default:
		}
	}
	clear(e.stepped) // do not keep finished sequences alive until the next step
}

// register adds sq's newly computed full blocks that have a hash (its
// prompt's, and its reply's as the next turn will send it back) to the
// prefix cache.
func (e *engine) register(sq *seq) {
	n := min(len(sq.hashes), sq.computed/BlockSize)
	for i := sq.nHashed; i < n; i++ {
		e.pool.register(sq.blocks[i], sq.hashes[i])
	}
	sq.nHashed = max(sq.nHashed, n)
}

func (e *engine) traceStep(start, end time.Time) stepTrace {
	st := stepTrace{start: start, end: end}
	for _, sq := range e.stepped {
		if !sq.aborted.Load() {
			st.seqs = append(st.seqs, seqStep{sq: sq, prefill: sq.chunk, emitted: sq.emitN})
		}
	}
	return st
}
