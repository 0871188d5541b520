package fit

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/toksweep/toksweep/client"
)

// truth is the step model the hand-made records are made from: sim.Config's
// parameters, in nanoseconds.
type truth struct {
	prefillBase, prefillPerToken, base, perSeq, perCtx float64
	overhead                                           float64 // a request's time to reach the server and its first token to come back
	slots                                              int
	cliffCtx                                           int     // a step holding more context than this lasts cliffFactor× (sim.StepCliff)
	cliffFactor                                        float64 // 0: no cliff
	// A request's own time before it queues (sim.Config.overhead): fixed,
	// per prompt token, and the growth of each per other request in
	// flight when it was sent, of which at most slots−1 count.
	own, ownPerTok, ownPerSeq, ownPerTokSeq float64
}

func (tr truth) ownNs(prompt, others int) float64 {
	b, p := float64(min(others, tr.slots-1)), float64(prompt)
	return tr.own + p*tr.ownPerTok + b*(tr.ownPerSeq+p*tr.ownPerTokSeq)
}

// wakeNs is how long an idle engine takes to start a step after a request
// arrives, as the simulator's scheduler goroutine does.
const wakeNs = 100e3

var knownTruth = truth{prefillBase: 1.5e6, prefillPerToken: 20e3, base: 3e6, perSeq: 150e3, perCtx: 20, overhead: 300e3, slots: 8}

// synthSpec is a run of hand-made records: a closed loop at each
// concurrency against a step-by-step model of the simulator's engine, with
// noise on every chunk's arrival.
type synthSpec struct {
	levels         []int
	promptLo, hiP  int     // prompt tokens, uniform in [promptLo, hiP]
	outLo, outHi   int     // output tokens, uniform
	arrivalNoiseNs float64 // std dev of each chunk's delay (|N|), the client's and network's noise
	jitter         float64 // each step's relative std dev, shared by its batch (sim.Config.Jitter)
	stamps         bool    // give every chunk a send stamp (SendLag = the delay)
	stallShare     float64 // the share of chunks after which the request's handler stalls for stallNs
	stallNs        float64 // (the chunks due meanwhile are written together when it wakes)
	seed           uint64
}

// synth runs spec against tr and returns its levels: each level's
// requests are sent by C workers back to back (the next 100µs after the
// last token), admitted first come first served while fewer than tr.slots
// run, and stepped as sim's engine steps them: every step lasts the model's
// time for the sequences in it, and emits one token per sequence.
func synth(tr truth, spec synthSpec) []Level {
	rng := rand.New(rand.NewPCG(spec.seed, 7))
	var out []Level
	var epoch float64
	for _, c := range spec.levels {
		recs := synthLevel(tr, spec, rng, c, max(12, 4*c), epoch)
		for _, r := range recs {
			epoch = max(epoch, float64(r.End))
		}
		epoch += 1e8
		out = append(out, Level{Name: fmt.Sprintf("c=%d", c), Records: recs})
	}
	return out
}

type synthSeq struct {
	rec           *client.Record
	arrive        float64 // at the server
	prompt, want  int
	produced      int
	sendNs, noise []float64
	stall         []bool
}

func synthLevel(tr truth, spec synthSpec, rng *rand.Rand, c, n int, t0 float64) []client.Record {
	recs := make([]client.Record, n)
	var waiting, running []*synthSeq
	next, held := 0, 0 // requests sent; those not finished
	send := func(at, arrive float64) {
		if next >= n {
			return
		}
		r := &recs[next]
		*r = client.Record{Concurrency: c, Seq: next, Start: time.Duration(at), HasUsage: true}
		s := &synthSeq{rec: r, arrive: arrive,
			prompt: spec.promptLo + rng.IntN(spec.hiP-spec.promptLo+1), want: spec.outLo + rng.IntN(spec.outHi-spec.outLo+1)}
		r.PromptTokens, r.CompletionTokens = s.prompt, s.want
		r.PromptEstimate = s.prompt // the server counts as toksweep does
		s.arrive += tr.ownNs(s.prompt, held)
		waiting = append(waiting, s)
		slices.SortStableFunc(waiting, func(a, b *synthSeq) int { return cmp.Compare(a.arrive, b.arrive) })
		next++
		held++
	}
	// The workers start a hair apart, as a real client's do, and the
	// server takes them in as one burst, as the simulator's engine does
	// when it wakes for the first.
	for w := range c {
		send(t0+float64(w)*20e3, t0+float64(c)*20e3+tr.overhead/2)
	}
	now := t0
	for len(waiting) > 0 || len(running) > 0 {
		if len(running) == 0 { // an idle engine wakes 100µs after an arrival and takes all that came
			now = max(now, waiting[0].arrive+wakeNs)
		}
		var stepped []*synthSeq
		prefill := 0
		ctx := 0
		for _, s := range running {
			ctx += s.prompt + s.produced
			stepped = append(stepped, s)
		}
		for len(waiting) > 0 && waiting[0].arrive <= now && len(running) < tr.slots {
			s := waiting[0]
			waiting = waiting[1:]
			running = append(running, s)
			stepped = append(stepped, s)
			prefill += s.prompt
			ctx += s.prompt
		}
		if len(stepped) == 0 {
			now = waiting[0].arrive
			continue
		}
		d := tr.base + tr.perSeq*float64(len(stepped)) + tr.perCtx*float64(ctx) + tr.prefillPerToken*float64(prefill)
		if prefill > 0 {
			d += tr.prefillBase
		}
		if tr.cliffFactor > 0 && ctx > tr.cliffCtx {
			d *= tr.cliffFactor
		}
		now += d * math.Max(0.1, 1+spec.jitter*rng.NormFloat64())
		for _, s := range stepped {
			s.produced++
			s.sendNs = append(s.sendNs, now)
			s.noise = append(s.noise, math.Abs(rng.NormFloat64())*spec.arrivalNoiseNs)
			s.stall = append(s.stall, rng.Float64() < spec.stallShare)
		}
		running = slices.DeleteFunc(running, func(s *synthSeq) bool {
			if s.produced < s.want {
				return false
			}
			finish(s, spec, tr)
			held--
			at := float64(s.rec.LastToken) + 1e5
			send(at, at+tr.overhead/2)
			return true
		})
	}
	return recs
}

// finish fills a finished request's token times: each chunk is written
// when its step ends, or when its stalled handler wakes, and arrives half
// the overhead later, plus its noise. The send stamp is the write.
func finish(s *synthSeq, spec synthSpec, tr truth) {
	r := s.rec
	ready := 0.0 // the handler's wake-up after a stall
	for k, at := range s.sendNs {
		write := max(at, ready)
		if s.stall[k] {
			ready = write + spec.stallNs
		}
		arrival := write + tr.overhead/2 + s.noise[k]
		r.ChunkAt = append(r.ChunkAt, time.Duration(arrival)-r.Start)
		if spec.stamps {
			r.SendLag = append(r.SendLag, time.Duration(arrival)-time.Duration(write))
		}
	}
	r.FirstToken = r.Start + r.ChunkAt[0]
	r.FirstContent = r.FirstToken
	r.LastToken = r.Start + r.ChunkAt[len(r.ChunkAt)-1]
	r.End = r.LastToken + 50e3
	r.Header = r.FirstToken
	r.FinishReason = "length"
	r.Status = 200
}
