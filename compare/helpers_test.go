package compare

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/sweep"
)

// dist describes synthetic requests: decode rate and TTFT drawn from
// normal distributions, k tokens each.
type dist struct {
	rate, rateSD float64       // decode tok/s
	ttft, ttftSD time.Duration // time to first token
	k            int           // tokens (one per chunk) per request
}

var base = dist{rate: 100, rateSD: 8, ttft: 200 * time.Millisecond, ttftSD: 20 * time.Millisecond, k: 32}

// scaled is d with decode rates multiplied by f.
func (d dist) scaled(f float64) dist {
	d.rate, d.rateSD = d.rate*f, d.rateSD*f
	return d
}

// request builds one successful request starting at start. Its decode rate
// is exactly rate: k−1 tokens over (k−1) gaps of 1/rate.
func (d dist) request(start, ttft time.Duration, rate float64) client.Record {
	gap := time.Duration(float64(time.Second) / rate)
	r := client.Record{Start: start, HasUsage: true, CompletionTokens: d.k, PromptTokens: 20, FinishReason: "stop"}
	r.ChunkAt = make([]time.Duration, d.k)
	for i := range r.ChunkAt {
		r.ChunkAt[i] = ttft + time.Duration(i)*gap
	}
	r.Header, r.FirstToken, r.FirstContent = start+ttft, start+ttft, start+ttft
	r.LastToken = start + r.ChunkAt[d.k-1]
	r.End = r.LastToken + time.Millisecond
	return r
}

// level is a closed loop of c workers running n measured requests each
// after one warm-up, starting at at, with values drawn from rng.
func (d dist) level(rng *rand.Rand, c, n, repeat int, at time.Duration) sweep.Level {
	l := sweep.Level{Concurrency: c, Repeat: repeat, EndReason: sweep.Completed, Start: at}
	for w := range c {
		t := at + time.Duration(w)*time.Millisecond
		for i := range n + 1 {
			rate := max(1, d.rate+d.rateSD*rng.NormFloat64())
			ttft := max(time.Millisecond, d.ttft+time.Duration(float64(d.ttftSD)*rng.NormFloat64()))
			r := d.request(t, ttft, rate)
			r.Concurrency, r.Repeat, r.Worker, r.Seq, r.Warmup = c, repeat, w, i, i == 0
			l.Records = append(l.Records, r)
			t = r.End
		}
		l.End = max(l.End, t)
	}
	return l
}

// run builds a run of levels cs, n requests per worker, from seed.
func (d dist) run(name string, seed uint64, n int, cs ...int) Run {
	rng := rand.New(rand.NewPCG(seed, 0))
	r := Run{Name: name}
	var at time.Duration
	for _, c := range cs {
		l := d.level(rng, c, n, 0, at)
		r.Levels = append(r.Levels, l)
		at = l.End + time.Second
	}
	return r
}

// repeat appends another repetition of level c (n requests per worker,
// drawn from seed) to r, after its last level.
func (d dist) repeat(r Run, seed uint64, c, n int) Run {
	rep, at := 0, time.Duration(0)
	for _, l := range r.Levels {
		if l.Concurrency == c {
			rep = max(rep, l.Repeat+1)
		}
		at = max(at, l.End+time.Second)
	}
	r.Levels = append(slices.Clone(r.Levels), d.level(rand.New(rand.NewPCG(seed, 1)), c, n, rep, at))
	return r
}
