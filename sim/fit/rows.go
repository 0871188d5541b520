package fit

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/client/promscrape"
)

// The columns of the step-time regression, in the order they are kept when
// two cannot be told apart.
const (
	colDecodeBase     = iota // 1 per step
	colPerCtx                // tokens of context in the step's batch
	colPerSeq                // sequences in the step
	colPrefillTok            // prompt tokens prefilled in the step (cached ones excluded)
	colPrefillBase           // 1 when the step prefilled any
	colOverhead              // 1 for a first token on an idle server: the request's own overhead
	colOverheadTok           // its prompt tokens: the part of that overhead that grows with the prompt (sending, tokenizing it)
	colOverheadSeq           // the other requests in flight when it was sent: the overhead's growth with the batch it joins
	colOverheadTokSeq        // its prompt tokens × those: the per-token part's growth
	nCols
)

// Decode steps are fitted in blocks of blockSteps consecutive steps of one
// request: the block's duration is the time between its first and last
// chunk, so a chunk sent late (a busy server or client) moves time between
// two steps of a block, not out of it. maxStepsPerRequest bounds the steps
// one request contributes (a long output adds its first ones).
//
// The bootstrap draws windows of windowSteps typical steps of a level, not
// requests: concurrent requests share their steps, and so a step's noise
// (the server's jitter, a late batch), which resampling requests would
// count once per request as if it were independent.
const (
	blockSteps         = 8
	maxStepsPerRequest = 512
	windowSteps        = 32
)

// Level is one measured level as the fit reads it.
type Level struct {
	Name    string                   // as the tables print it, e.g. "c=8"
	Records []client.Record          // every record of the level, warm-up included
	Server  *promscrape.LevelMetrics // the server's metrics during the level; nil when not scraped
	// Measured is the level's figures (the caller's summary of it), kept
	// in the model for grading; nil: none.
	Measured *Measured
}

// row is one observed duration and what the step model says it is made
// of: a block of decode steps (their summed regressors), or a first token
// on an idle server.
type row struct {
	x     [nCols]float64
	y     float64 // nanoseconds
	steps int     // decode steps in the block; 0 for a first token
	level int
	unit  int     // the bootstrap's unit: the window of time the row starts in (windowSteps typical steps)
	w     float64 // the robust fit's weight; 0 means 1 (not yet weighed)
}

func (r *row) weight() float64 {
	if r.w == 0 {
		return 1
	}
	return r.w
}

// relResidual is (y − fitted)/fitted under beta.
func (r *row) relResidual(beta [nCols]float64) float64 {
	fit := 0.0
	for c := range nCols {
		fit += beta[c] * r.x[c]
	}
	return (r.y - fit) / math.Max(fit, 1)
}

// span is a request as the rows need it: its times (ns from the run epoch)
// on the clock the level's intervals are read on, and its lengths.
type span struct {
	first, last float64   // first and last token
	chunks      []float64 // every token chunk
	prompt      float64   // prompt tokens
	uncached    float64   // prompt tokens prefilled: prompt × (1 − the level's hit share)
	perChunk    float64   // tokens per chunk
	rec         *client.Record
}

// levelData is one level turned into rows, with what the fit reports of it.
type levelData struct {
	rows      []row
	decode    int     // decode steps fitted
	idle      int     // first tokens on an idle server
	beside    []row   // first tokens of requests sent beside others in flight (admit)
	admitted  int     // those admitted at once, fitted
	skipped   int     // intervals too long to be one step (a preemption, a stall)
	stamped   bool    // intervals read on the server's send stamps
	hitShare  float64 // prefix-cache hits over queries, 0 when none reported
	waitedAt  []int   // the running batch of each decode step during which a request waited for a slot
	maxBatch  int     // the largest running batch seen
	prompts   []int   // every request's prompt tokens
	batchSeen map[int]bool
}

// stamped says whether every request of the level with tokens carries the
// server's send stamp of each chunk: then intervals are read on the
// server's clock, free of the client's and the network's delays.
func stamped(recs []client.Record) bool {
	any := false
	for i := range recs {
		r := &recs[i]
		if len(r.ChunkAt) == 0 {
			continue
		}
		if len(r.SendLag) != len(r.ChunkAt) {
			return false
		}
		any = true
	}
	return any
}

// hitShare is the level's prefix-cache hit share from the server's
// counters, 0 when it reported none.
func hitShare(m *promscrape.LevelMetrics) float64 {
	if m == nil || !m.PrefixHits.OK || !m.PrefixQueries.OK || m.PrefixQueries.Delta <= 0 {
		return 0
	}
	return min(max(m.PrefixHits.Delta/m.PrefixQueries.Delta, 0), 1)
}

func spans(recs []client.Record, useStamps bool, hit float64) []span {
	var out []span
	for i := range recs {
		r := &recs[i]
		if len(r.ChunkAt) == 0 {
			continue
		}
		s := span{rec: r, prompt: float64(r.PromptTokens)}
		s.uncached = s.prompt * (1 - hit)
		s.perChunk = float64(max(r.OutputTokens(), len(r.ChunkAt))) / float64(len(r.ChunkAt))
		s.chunks = make([]float64, len(r.ChunkAt))
		for k, at := range r.ChunkAt {
			t := r.Start + at
			if useStamps {
				t -= r.SendLag[k]
			}
			s.chunks[k] = float64(t)
		}
		slices.Sort(s.chunks) // stamps may disagree by a hair with arrival order
		s.first, s.last = s.chunks[0], s.chunks[len(s.chunks)-1]
		out = append(out, s)
	}
	return out
}

// buildLevel turns one level's records into rows: one per block of decode
// intervals of a successful request (each the step that ended at its
// chunk), and one per
// first token of a request that found the server idle (its whole TTFT is
// one step plus the request's overhead).
func buildLevel(li int, l Level) levelData {
	d := levelData{stamped: stamped(l.Records), hitShare: hitShare(l.Server), batchSeen: map[int]bool{}}
	sp := spans(l.Records, d.stamped, d.hitShare)
	if len(sp) == 0 {
		return d
	}
	var gaps []float64
	for _, s := range sp {
		for k := 1; k < len(s.chunks); k++ {
			gaps = append(gaps, s.chunks[k]-s.chunks[k-1])
		}
	}
	if len(gaps) == 0 {
		return d
	}
	// The typical step is the median gap, or half the mean where that is
	// more: when the server writes late it sends a step's chunks in
	// bunches (many tiny gaps, one long), and only the mean still measures
	// a step.
	mean := 0.0
	for _, g := range gaps {
		mean += g
	}
	mean /= float64(len(gaps))
	slices.Sort(gaps)
	typical := max(gaps[len(gaps)/2], mean/2, float64(time.Microsecond))
	width := 4 * typical
	window := windowSteps * typical
	t0 := slices.MinFunc(sp, func(a, b span) int { return cmp.Compare(a.first, b.first) }).first
	running := newIndex(field(sp, func(s span) float64 { return s.first }), field(sp, func(s span) float64 { return s.last }), width)
	fastest := math.Inf(1)
	for _, s := range sp {
		fastest = min(fastest, float64(s.rec.FirstToken-s.rec.Start))
	}
	inflight := newIndex(field(sp, func(s span) float64 { return float64(s.rec.Start) }), field(sp, func(s span) float64 { return float64(s.rec.LastToken) }), width)
	queued := newIndex(field(sp, func(s span) float64 { return float64(s.rec.Start) }), field(sp, func(s span) float64 { return float64(s.rec.FirstToken) }), width)
	opened := slices.MinFunc(sp, func(a, b span) int { return cmp.Compare(a.first, b.first) }).first
	for i, s := range sp {
		d.prompts = append(d.prompts, int(s.prompt))
		if !s.rec.OK() {
			continue
		}
		var blk row
		flush := func() {
			if blk.steps > 0 {
				blk.level = li
				d.rows = append(d.rows, blk)
			}
			blk = row{}
		}
		for k := 1; k < len(s.chunks) && k <= maxStepsPerRequest; k++ {
			gap := s.chunks[k] - s.chunks[k-1]
			// The step's chunks land nearer its end than its
			// neighbours' ends: between the midpoints to this request's
			// previous and next chunks (for its last, at most half a
			// typical step on).
			after := typical / 2
			if k+1 < len(s.chunks) {
				after = (s.chunks[k+1] - s.chunks[k]) / 2
			}
			after = min(after, gap/2, width)
			x, b := step(sp, running, s.chunks[k], min(gap/2, width), after)
			// A block never spans two windows, so that the rows holding
			// one step's noise are all in the step's window.
			unit := int((s.chunks[k] - t0) / window)
			if blk.steps > 0 && unit != blk.unit {
				flush()
			}
			blk.unit = unit
			if gap > 8*width && x[colPrefillBase] == 0 {
				// A gap of over 32 typical steps with no prefill in it
				// is not a step, nor a bunch's wait: the request was out
				// of the batch (preempted), or the server stalled.
				d.skipped++
				flush()
				continue
			}
			for c := range nCols {
				blk.x[c] += x[c]
			}
			blk.y += gap
			blk.steps++
			d.decode++
			d.maxBatch = max(d.maxBatch, b)
			d.batchSeen[b] = true
			if waiting(sp, queued, inflight, s.rec, k, b, fastest) {
				d.waitedAt = append(d.waitedAt, b)
			}
			if blk.steps == blockSteps {
				flush()
			}
		}
		flush()
		if idle(sp, i) {
			x := [nCols]float64{colDecodeBase: 1, colPerSeq: 1, colPerCtx: s.prompt, colPrefillTok: s.uncached, colPrefillBase: 1, colOverhead: 1, colOverheadTok: s.prompt}
			d.rows = append(d.rows, row{x: x, y: float64(s.rec.FirstToken - s.rec.Start), level: li, unit: int((s.first - t0) / window)})
			d.idle++
		} else if x, ok := admitted(sp, running, inflight, i, min(typical/2, width), opened); ok {
			d.beside = append(d.beside, row{x: x, y: float64(s.rec.FirstToken - s.rec.Start), level: li, unit: int((s.first - t0) / window)})
		}
	}
	return d
}

// admit adds the rows of the first tokens admitted beside a running batch
// of the requests that found a free slot: fewer than slots others in
// flight when sent (a longer wait is the queue's, which the step model
// already holds).
func (d *levelData) admit(slots int) {
	for _, r := range d.beside {
		if r.x[colOverheadSeq] < float64(slots) {
			d.rows = append(d.rows, r)
			d.admitted++
		}
	}
}

// admitted is the regressors of request i's time to its first token when
// it was sent while another ran (had its first token, not its last), after
// the level's first token: its own overhead, whose per-sequence parts
// count the others in flight, then its wait for the step it arrived in to
// end, then the step that prefilled it. It arrived during the step before
// that one, and after it was sent: half of that step's part after the
// send is its expected wait, in that step's regressors. half is half a
// typical step, the window around a chunk.
func admitted(sp []span, running, inflight *index, i int, half, opened float64) (x [nCols]float64, ok bool) {
	s := &sp[i]
	sent := float64(s.rec.Start)
	if sent < opened {
		return x, false
	}
	others := 0
	for _, j := range inflight.around(sent) {
		if q := sp[j].rec; j != i && float64(q.Start) <= sent && float64(q.LastToken) > sent {
			others++
		}
	}
	beside := false
	for _, j := range running.around(sent) {
		beside = beside || j != i && sp[j].first <= sent && sp[j].last > sent
	}
	if !beside {
		return x, false
	}
	end, start := math.Inf(-1), 0.0 // the step before its own: its end and start
	for _, j := range running.around(s.first) {
		o := &sp[j]
		if j == i || o.last <= sent {
			continue
		}
		if k := sort.SearchFloat64s(o.chunks, s.first-half); k > 1 && o.chunks[k-1] > end {
			end, start = o.chunks[k-1], o.chunks[k-2]
		}
	}
	if end > sent && end > start {
		w, _ := step(sp, running, end, half, half)
		rest := (end - max(start, sent)) / (end - start) / 2
		for c := range nCols {
			x[c] += w[c] * rest
		}
	}
	own, _ := step(sp, running, s.first, half, half)
	for c := range nCols {
		x[c] += own[c]
	}
	x[colOverhead], x[colOverheadTok] = 1, s.prompt
	x[colOverheadSeq], x[colOverheadTokSeq] = float64(others), s.prompt*float64(others)
	return x, true
}

// waiting says whether, at the end of r's k-th chunk's step, another
// request of the level had been sent more than two steps before (beyond
// fastest, the level's quickest first token: the request's own way to the
// server and back) and still had no token: it waited while r's batch ran.
// More requests must be in flight than the b running, or nobody can be
// waiting (a closed loop of b workers is never queued, however late its
// requests' first tokens come). Client times throughout
// (the send instant has no server stamp).
func waiting(sp []span, queued, inflight *index, r *client.Record, k, b int, fastest float64) bool {
	t := float64(r.Start + r.ChunkAt[k])
	gap := float64(r.ChunkAt[k] - r.ChunkAt[k-1])
	n := 0 // requests in flight: one can wait only beside b running ones
	for _, j := range inflight.around(t) {
		if q := sp[j].rec; float64(q.Start) <= t && float64(q.LastToken) >= t {
			n++
		}
	}
	if n <= b {
		return false
	}
	for _, j := range queued.around(t) {
		q := sp[j].rec
		if q != r && float64(q.Start) < t-2*gap-fastest && float64(q.FirstToken) > t+gap {
			return true
		}
	}
	return false
}

func field(sp []span, f func(span) float64) []float64 {
	out := make([]float64, len(sp))
	for i, s := range sp {
		out[i] = f(s)
	}
	return out
}

// idle says whether request i had the server to itself from its send to
// its first token: no other request of the level was in flight then
// (client times: sent, and not yet past its last token), so its first
// step computed its prefill alone.
func idle(sp []span, i int) bool {
	r := sp[i].rec
	if r.FirstToken <= r.Start {
		return false
	}
	for j, o := range sp {
		if j != i && o.rec.Start <= r.FirstToken && o.rec.LastToken >= r.Start {
			return false
		}
	}
	return true
}

// index finds the intervals around an instant: each interval is listed
// in the buckets (of the given width) it touches, widened by one width on
// each side.
type index struct {
	t0, width float64
	buckets   [][]int
}

func newIndex(lo, hi []float64, width float64) *index {
	first, last := math.Inf(1), math.Inf(-1)
	for i := range lo {
		first, last = min(first, lo[i]), max(last, hi[i])
	}
	ix := &index{t0: first - width, width: width}
	if len(lo) == 0 {
		return ix
	}
	ix.buckets = make([][]int, int((last+width-ix.t0)/width)+1)
	for i := range lo {
		for b := ix.bucket(lo[i] - width); b <= ix.bucket(hi[i]+width); b++ {
			ix.buckets[b] = append(ix.buckets[b], i)
		}
	}
	return ix
}

func (ix *index) bucket(t float64) int {
	return min(max(int((t-ix.t0)/ix.width), 0), len(ix.buckets)-1)
}

// around lists the intervals that may hold an instant within one width of t.
func (ix *index) around(t float64) []int {
	if len(ix.buckets) == 0 {
		return nil
	}
	return ix.buckets[ix.bucket(t)]
}

// step is the regressors of the step that ended at t, whose chunks land
// from t−before to t+after: the requests with their first token by
// then and their last one no earlier, their context (prompt plus the
// tokens of their chunks before the step), and the prompts of those whose
// first token is this step's (their prefill ran in it). b is the batch.
func step(sp []span, ix *index, t, before, after float64) (x [nCols]float64, b int) {
	x[colDecodeBase] = 1
	for _, j := range ix.around(t) {
		s := &sp[j]
		if s.first > t+after || s.last <= t-before {
			continue
		}
		b++
		earlier := sort.SearchFloat64s(s.chunks, t-before)
		x[colPerCtx] += s.prompt + s.perChunk*float64(earlier)
		if s.first > t-before {
			x[colPrefillTok] += s.uncached
			x[colPrefillBase] = 1
		}
	}
	x[colPerSeq] = float64(b)
	return x, b
}
