package fit

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/toksweep/toksweep/internal/pct"
)

// Options tune a fit; the zero value is the documented default.
type Options struct {
	Resamples int    // bootstrap resamples; 0 means 200
	Seed      uint64 // the bootstrap's generator; the same data and seed give the same intervals
}

// The bootstrap's interval: the 10th and 90th percentiles of the resampled
// estimates.
const (
	intervalLo = 10
	intervalHi = 90
	// minResidual is how much of a column the others must leave unexplained
	// (relative norm) for its cost to be told apart from theirs.
	minResidual = 1e-3
	// minWaits is how many decode steps must have seen a request wait for a
	// batch slot before the slot limit counts as measured.
	minWaits = 20
	// unmeasuredSlots is the batch-slot limit a model keeps when no request
	// waited for a slot: vLLM's default --max-num-seqs.
	unmeasuredSlots = 256
)

// ErrNoSteps is returned when the levels hold no decode step to fit.
var ErrNoSteps = errors.New("no request has two token chunks: nothing to fit a step time to")

// FromLevels fits the simulator's step-time parameters to measured levels:
// a step lasts
//
//	prefill_base×[any prefill] + prefill_per_token×prefill_tokens
//	  + decode_base + decode_per_seq×B + decode_per_ctx_token×ctx
//
// (sim.Config's model), fitted by Huber-weighted non-negative least
// squares to the decode intervals of every successful request (each one
// step of its batch), summed in blocks, to the first token of every
// request sent to an idle server (one step plus the request's own
// overhead), and to that of every request admitted at once beside a
// running batch (the rest of the step it arrived in, its prefill's step,
// and its overhead, grown per other request in flight: rows.go's
// admitted), with 80% intervals from a bootstrap over windows of time
// within each level. The batch-slot limit is counted from the steps during
// which a request waited. docs/metrics.md ("The fitted model") defines
// each part.
func FromLevels(levels []Level, opt Options) (Model, error) {
	opt.Resamples = cmp0(opt.Resamples, 200)
	var data []levelData
	var all gram
	for i, l := range levels {
		data = append(data, buildLevel(i, l))
	}
	slots, counted := countSlots(data)
	for i := range data {
		if !counted {
			slots = math.MaxInt // no request waited: each was admitted as it came
		}
		data[i].admit(slots)
		for _, r := range data[i].rows {
			all.addRow(r.x, r.y)
		}
	}
	f := &fitter{levels: levels, data: data, all: &all, opt: opt}
	if all.n == 0 || all.xx[colDecodeBase][colDecodeBase] == 0 {
		return Model{}, ErrNoSteps
	}
	f.choose()
	beta, ok := f.robust()
	if !ok {
		return Model{}, errors.New("the step-time fit is singular: the levels hold too little variation")
	}
	return f.model(beta), nil
}

// huberK is where Huber's weights start: a row whose relative residual is
// more than huberK robust standard deviations (1.4826 × the median
// absolute one) counts as if it were that far.
const huberK = 2.5

// robust fits by iteratively reweighted non-negative least squares with
// Huber's weights on each row's relative residual, so that a block that
// a late chunk put a neighbour's prefill in or out of (a 10ms error among
// 0.1ms ones) does not pull the fit. It leaves each row's weight in
// f.data for the bootstrap.
func (f *fitter) robust() (beta [nCols]float64, ok bool) {
	for iter := range 6 {
		var g gram
		for _, d := range f.data {
			for _, r := range d.rows {
				g.addWeighted(r.x, r.y, r.weight())
			}
		}
		next, solved := nnls(&g, f.kept)
		if !solved {
			return beta, iter > 0 && ok
		}
		beta, ok = next, true
		var rel []float64
		for _, d := range f.data {
			for _, r := range d.rows {
				rel = append(rel, math.Abs(r.relResidual(beta)))
			}
		}
		slices.Sort(rel)
		scale := 1.4826 * rel[len(rel)/2]
		if scale == 0 {
			break
		}
		for _, d := range f.data {
			for i := range d.rows {
				r := &d.rows[i]
				e := math.Abs(r.relResidual(beta))
				r.w = 1
				if e > huberK*scale {
					r.w = huberK * scale / e
				}
			}
		}
	}
	return beta, ok
}

func cmp0(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// fitter holds one fit's data and the columns it keeps.
type fitter struct {
	levels []Level
	data   []levelData
	all    *gram
	opt    Options
	kept   []int
	notes  map[int]string   // a dropped column's sentence
	draws  [][nCols]float64 // the bootstrap's refits, for prediction intervals (predict.go)
}

// choose keeps the columns the data can tell apart, in column order, and
// says in one sentence why each other one is not identified.
func (f *fitter) choose() {
	f.notes = map[int]string{}
	var prompts []int
	batches := map[int]bool{}
	for _, d := range f.data {
		prompts = append(prompts, d.prompts...)
		for b := range d.batchSeen {
			batches[b] = true
		}
	}
	lo, hi := slices.Min(prompts), slices.Max(prompts)
	for c := range nCols {
		switch {
		case f.all.xx[c][c] == 0:
			if !clientSide(c) { // no idle request: nothing to say
				f.notes[c] = zeroNote(c)
			}
		case c == colPrefillBase && float64(hi-lo) <= 0.1*float64(hi):
			f.notes[c] = samePromptNote(lo, hi)
		case c == colPerSeq && len(batches) == 1:
			f.notes[c] = fmt.Sprintf("every decode step ran the same number of sequences (%d): the per-sequence decode cost is not identified (it is folded into decode_base); re-run with several --levels", only(batches))
		case c == colOverheadTok && f.all.residual(c, []int{colOverhead}) < minResidual:
			// one prompt length: the overhead's two parts are one
		case c == colOverheadTokSeq && f.all.residual(c, []int{colOverheadSeq}) < minResidual:
			// one prompt length: its growth's two parts are one
		case f.all.residual(c, f.kept) < minResidual:
			f.notes[c] = collinearNote(c)
		default:
			f.kept = append(f.kept, c)
		}
	}
}

// clientSide says whether column c is the request's own overhead, which is
// fitted so that it does not bias the step's costs, but is no simulator
// parameter.
func clientSide(c int) bool { return c >= colOverhead }

func only(m map[int]bool) int {
	for k := range m {
		return k
	}
	return 0
}

func samePromptNote(lo, hi int) string {
	if lo == hi {
		return fmt.Sprintf("every request had the same prompt length (%d tokens): the per-token prefill cost is not identified apart from a fixed one (the prefill is fitted per token, prefill_base 0); re-run with --input-tokens varying, e.g. --input-tokens %d:%d", lo, max(lo, 64), max(lo, 64)/2)
	}
	return fmt.Sprintf("prompt lengths varied only from %d to %d tokens: the per-token prefill cost is not identified apart from a fixed one (the prefill is fitted per token, prefill_base 0); re-run with --input-tokens varying more, e.g. --input-tokens %d:%d", lo, hi, hi, hi/2)
}

func collinearNote(c int) string {
	switch c {
	case colOverhead:
		return "no request was admitted while others ran, so the fixed prefill cost cannot be told from a request's own overhead (prefill_base includes it); re-run with --levels above 1"
	case colOverheadTok:
		return "no request was admitted while others ran, so the per-token prefill cost cannot be told from a request's per-token overhead (sending and tokenizing the prompt: prefill_per_token includes it); re-run with --levels above 1"
	case colOverheadSeq, colOverheadTokSeq:
		return "the requests admitted beside a running batch all ran beside as many others, or their times are told by the other costs: whether a request's own time grows with the batch it joins is not identified (" + paramOf(c).name + " left at 0); re-run with --levels 1 and two more below the slot limit"
	}
	return paramOf(c).name + " cannot be told apart from the costs before it in these runs: it is not identified (left at 0)"
}

func zeroNote(c int) string {
	switch c {
	case colPrefillTok, colPrefillBase:
		return "no prefill was seen in a step the fit could read (no request found the server idle, and none was admitted beside a running one): the prefill costs are not identified (the preset's values stand)"
	case colPerCtx:
		return "no step had context tokens: decode_per_ctx_token is not identified (left at 0)"
	}
	return paramOf(c).name + " is not identified: its column is empty"
}

// model turns the fitted coefficients into the Model: the parameters with
// their intervals, the residual of each level, the slot limit and the
// sentences for what is not identified.
func (f *fitter) model(beta [nCols]float64) Model {
	boot := f.bootstrap()
	m := Model{Format: Format, Interval: fmt.Sprintf("%d%% bootstrap over time (%d resamples of each level's windows of %d typical steps, drawn within the level; the batch each step ran is kept)", intervalHi-intervalLo, f.opt.Resamples, windowSteps)}
	for c := range nCols {
		p := paramOf(c)
		prm := Param{Name: p.name, Unit: p.unit, Doc: p.doc, Value: beta[c], InSim: !clientSide(c), Identified: slices.Contains(f.kept, c)}
		if prm.Identified && len(boot[c]) > 0 {
			s := slices.Sorted(slices.Values(boot[c]))
			lo, hi := pct.Percentile(s, intervalLo), pct.Percentile(s, intervalHi)
			prm.Lo, prm.Hi = &lo, &hi
		}
		if n, ok := f.notes[c]; ok {
			m.NotIdentified = append(m.NotIdentified, n)
		}
		if clientSide(c) && !prm.Identified {
			continue // no idle request, or the prompt's part is not told from the prefill's: not part of this fit
		}
		m.Params = append(m.Params, prm)
	}
	m.Params = append(m.Params, f.slots(&m), promptScale(f.levels, &m))
	for i, d := range f.data {
		m.Levels = append(m.Levels, residualOf(f.levels[i].Name, d, beta))
		m.Steps += d.decode
		m.IdleFirst += d.idle
		if d.stamped {
			m.Stamped++
		}
	}
	m.Poor = f.poorFit(m.Levels)
	m.setSim(f.kept)
	m.Draws = f.drawSims(m)
	c := f.calibration(&m)
	m.Calibration = &c
	for _, l := range f.levels {
		if l.Measured != nil {
			m.Measured = append(m.Measured, *l.Measured)
		}
	}
	return m
}

// bootstrap refits on resamples of the levels' windows of time (each
// window's rows together), drawn with replacement within each level, and
// returns each column's estimates.
func (f *fitter) bootstrap() [nCols][]float64 {
	var perLevel [][]gram
	for _, d := range f.data {
		byUnit := map[int]*gram{}
		for _, r := range d.rows {
			g := byUnit[r.unit]
			if g == nil {
				g = &gram{}
				byUnit[r.unit] = g
			}
			g.addWeighted(r.x, r.y, r.weight())
		}
		var gs []gram
		for _, k := range slices.Sorted(maps.Keys(byUnit)) {
			gs = append(gs, *byUnit[k])
		}
		perLevel = append(perLevel, gs)
	}
	rng := rand.New(rand.NewPCG(f.opt.Seed, 0x5eed))
	var out [nCols][]float64
	for range f.opt.Resamples {
		var g gram
		for _, gs := range perLevel {
			for range gs {
				g.add(&gs[rng.IntN(len(gs))])
			}
		}
		beta, ok := nnls(&g, f.kept)
		if !ok {
			continue
		}
		for _, c := range f.kept {
			out[c] = append(out[c], beta[c])
		}
		f.draws = append(f.draws, beta)
	}
	return out
}

// slots is the batch-slot limit: the most common running batch among the
// decode steps during which a request waited, when at least minWaits did;
// otherwise it is not identified, and the model keeps unmeasuredSlots (at
// least the largest batch seen).
func (f *fitter) slots(m *Model) Param {
	seen := 0
	for _, d := range f.data {
		seen = max(seen, d.maxBatch)
	}
	p := Param{Name: "max_num_seqs", Unit: "seqs", Doc: "batch-slot limit", InSim: true}
	best, ok := countSlots(f.data)
	if !ok {
		p.Value = float64(max(unmeasuredSlots, seen))
		m.NotIdentified = append(m.NotIdentified, fmt.Sprintf(
			"no request waited for a batch slot (the largest running batch seen was %d): the batch-slot limit is not identified; the model keeps %d (vLLM's default); re-run with --levels beyond the server's --max-num-seqs", seen, int(p.Value)))
		return p
	}
	waited := 0
	for _, d := range f.data {
		waited += len(d.waitedAt)
	}
	p.Value, p.Identified = float64(best), true
	p.Counted = fmt.Sprintf("counted: in %d decode steps a request waited, most often while %d ran", waited, best)
	return p
}

// countSlots is the most common running batch among the decode steps
// during which a request waited, when at least minWaits did.
func countSlots(data []levelData) (best int, ok bool) {
	var waited []int
	for _, d := range data {
		waited = append(waited, d.waitedAt...)
	}
	if len(waited) < minWaits {
		return 0, false
	}
	count := map[int]int{}
	for _, b := range waited {
		count[b]++
		if count[b] > count[best] || (count[b] == count[best] && b > best) {
			best = b
		}
	}
	return best, true
}

// residualOf compares a level's measured decode steps with the fitted
// ones: the mean step over its blocks, measured and fitted, their relative
// bias, and the root-mean-square of each block's relative residual.
func residualOf(name string, d levelData, beta [nCols]float64) Residual {
	r := Residual{Level: name, Steps: d.decode, Skipped: d.skipped, HitShare: d.hitShare}
	var steps, sq float64
	blocks := 0
	for _, row := range d.rows {
		if row.steps == 0 {
			continue
		}
		fit := 0.0
		for c := range nCols {
			fit += beta[c] * row.x[c]
		}
		r.MeasuredNs += row.y
		r.FittedNs += fit
		steps += float64(row.steps)
		e := row.relResidual(beta) // over the fitted time: a block whose chunks came bunched (a tiny measured time) does not swamp the rest
		sq += e * e
		blocks++
	}
	if blocks == 0 {
		r.MeasuredNs, r.FittedNs, r.Bias, r.RMS = math.NaN(), math.NaN(), math.NaN(), math.NaN()
		return r
	}
	r.Bias = (r.FittedNs - r.MeasuredNs) / r.MeasuredNs
	r.MeasuredNs /= steps
	r.FittedNs /= steps
	r.RMS = math.Sqrt(sq / float64(blocks))
	return r
}
