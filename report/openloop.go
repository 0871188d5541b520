package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// The open-loop thresholds; docs/metrics.md ("Open loop") gives the reasons.
const (
	// DispatchDelayLimit: an uncapped open-loop level whose dispatch delay
	// p99 (Start − Sched) is above this was sent late by the client: it is
	// client-limited. With --max-concurrency the wait for a slot is part of
	// the dispatch delay by design, and the check is left to timer_late.
	DispatchDelayLimit = 10 * time.Millisecond
	// ShortfallMax: an open-loop level whose completion rate falls short of
	// its arrival rate by more than this share, or whose finished requests
	// fall short of its arrivals by as much, could not keep up.
	ShortfallMax = 0.05
	// TTFTRiseMin and TTFTRiseShare: an open-loop level whose TTFT, fitted
	// by least squares against the scheduled instant, rises across the
	// level by more than TTFTRiseMin and more than TTFTRiseShare × its TTFT
	// p50 has a growing queue.
	TTFTRiseMin   = 100 * time.Millisecond
	TTFTRiseShare = 1.0
	// minFit is the fewest successful requests the TTFT fit rests on.
	minFit = 10
)

// requestFigures is what the per-request SLO (goodput) checks read of one
// successful measured request.
type requestFigures struct {
	ttft   time.Duration // NoSample without a token
	decode float64       // NaN when undefined
	e2e    float64
	tpot   float64       // ns; 0 with one token or none, as vLLM's goodput counts it
	e2el   time.Duration // End − origin, the e2e_latency figures' per-request value
}

// throughput fills the figures both loops share: the finished count,
// inflight_peak and TPOT.
func (s *LevelStats) throughput(measured []request, ok []*request) {
	s.Finished = 0
	for i := range measured {
		if finished(measured[i]) {
			s.Finished++
		}
	}
	s.InflightPeak = inflightPeak(measured)
	var tpot []float64
	s.requests = make([]requestFigures, 0, len(ok))
	for _, r := range ok {
		if v := r.tpot(); !math.IsNaN(v) {
			tpot = append(tpot, v)
		}
		s.requests = append(s.requests, requestFigures{ttft: r.ttft, decode: r.decode, e2e: r.e2e, tpot: r.goodputTPOT(), e2el: r.end - r.origin()})
	}
	slices.Sort(tpot)
	s.TPOTP50 = duration(Percentile(tpot, 50))
	s.TPOTP99 = duration(Percentile(tpot, 99))
}

// inflightPeak is the most measured requests on the wire (Start to End)
// at once.
func inflightPeak(measured []request) int {
	type edge struct {
		at time.Duration
		d  int
	}
	edges := make([]edge, 0, 2*len(measured))
	for i := range measured {
		edges = append(edges, edge{measured[i].start, 1}, edge{measured[i].end, -1})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if a.at != b.at {
			return int(a.at - b.at)
		}
		return a.d - b.d // an end before a start at the same instant
	})
	n, peak := 0, 0
	for _, e := range edges {
		n += e.d
		peak = max(peak, n)
	}
	return peak
}

// openLoop fills the open-loop figures of a rate level: the realised
// arrival rate, the dispatch delay, the TTFT rise and the stability verdict.
func (s *LevelStats) openLoop(measured []request, ok []*request) {
	s.OfferedRPS, s.AchievedRPS, s.TTFTRise = math.NaN(), math.NaN(), NoSample
	s.DispatchDelayP50, s.DispatchDelayP99, s.DispatchDelayMax = NoSample, NoSample, NoSample
	if !s.Key().IsOpen() || len(measured) == 0 {
		return
	}
	var delay []float64
	lo, hi := measured[0].origin(), measured[0].origin()
	for i := range measured {
		r := &measured[i]
		lo, hi = min(lo, r.origin()), max(hi, r.origin())
		if r.sched != 0 {
			delay = append(delay, float64(r.start-r.sched))
		}
	}
	if hi > lo {
		s.OfferedRPS = float64(len(measured)-1) / (hi - lo).Seconds()
	}
	s.AchievedRPS = completionRate(measured)
	slices.Sort(delay)
	s.DispatchDelayP50 = duration(Percentile(delay, 50))
	s.DispatchDelayP99 = duration(Percentile(delay, 99))
	if len(delay) > 0 {
		s.DispatchDelayMax = duration(delay[len(delay)-1])
	}
	s.TTFTRise = ttftRise(ok)
	s.Unstable, s.UnstableReason = s.unstable(len(measured))
}

// completionRate is (f − 1) / (last End − first End) over the f requests
// that finished (not canceled); NaN with fewer than two. In an open loop
// the ends follow the arrivals, so it is the rate the server kept up with.
// (In a closed loop the workers' rounds bias it: requests_per_s is that
// loop's rate.)
func completionRate(measured []request) float64 {
	var ends []time.Duration
	for i := range measured {
		if finished(measured[i]) {
			ends = append(ends, measured[i].end)
		}
	}
	if len(ends) < 2 {
		return math.NaN()
	}
	lo, hi := slices.Min(ends), slices.Max(ends)
	if hi <= lo {
		return math.NaN()
	}
	return float64(len(ends)-1) / (hi - lo).Seconds()
}

// ttftRise is the rise of TTFT across the level: the least-squares slope
// of TTFT over the scheduled instant, times the span of those instants.
// NoSample with fewer than minFit successful requests with a token.
func ttftRise(ok []*request) time.Duration {
	var xs, ys []float64
	for _, r := range ok {
		if t := r.ttft; t != NoSample {
			xs, ys = append(xs, r.origin().Seconds()), append(ys, float64(t))
		}
	}
	if len(xs) < minFit {
		return NoSample
	}
	var mx, my float64
	for i := range xs {
		mx, my = mx+xs[i], my+ys[i]
	}
	mx, my = mx/float64(len(xs)), my/float64(len(xs))
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	if sxx == 0 {
		return NoSample
	}
	return time.Duration(math.Round(sxy / sxx * (slices.Max(xs) - slices.Min(xs))))
}

// unstable applies the stability checks to an open-loop level of n
// arrivals, returning whether any fired and what they found.
func (s *LevelStats) unstable(n int) (bool, string) {
	var why []string
	if s.AchievedRPS < (1-ShortfallMax)*s.OfferedRPS {
		why = append(why, fmt.Sprintf("completions %.3g/s < arrivals %.3g/s", s.AchievedRPS, s.OfferedRPS))
	}
	if float64(s.Finished) < (1-ShortfallMax)*float64(n) {
		why = append(why, fmt.Sprintf("%d of %d arrivals finished", s.Finished, n))
	}
	if s.TTFTRise != NoSample && s.TTFTRise > TTFTRiseMin && (s.TTFTP50 == NoSample || float64(s.TTFTRise) > TTFTRiseShare*float64(s.TTFTP50)) {
		why = append(why, fmt.Sprintf("TTFT rose %.0fms across the level", Ms(s.TTFTRise)))
	}
	return len(why) > 0, strings.Join(why, "; ")
}

// goodput returns the share of the level's finished requests that succeeded
// and met every per-request criterion of o (TTFT ≤ TTFTP95, decode rate ≥
// DecodeTPS, e2e rate ≥ E2ETPS), and their rate: that share of
// achieved_rps in an open loop; in a closed loop the good share of the
// successful requests times requests_per_s (the successful rate). NaN when
// no request finished.
func goodput(s *LevelStats, o SLO) (ratio, rps float64) {
	if s.Finished == 0 {
		return math.NaN(), math.NaN()
	}
	good := 0
	for _, r := range s.requests {
		switch {
		case o.TTFTP95 > 0 && (r.ttft == NoSample || r.ttft > o.TTFTP95):
		case o.DecodeTPS > 0 && !(r.decode >= o.DecodeTPS):
		case o.E2ETPS > 0 && !(r.e2e >= o.E2ETPS):
		case o.TPOTP99 > 0 && r.tpot > float64(o.TPOTP99):
		case o.E2EP95 > 0 && r.e2el > o.E2EP95:
		default:
			good++
		}
	}
	ratio = float64(good) / float64(s.Finished)
	if s.Key().IsOpen() {
		return ratio, ratio * s.AchievedRPS
	}
	if s.RequestsOK == 0 {
		return ratio, 0
	}
	return ratio, float64(good) / float64(s.RequestsOK) * s.RequestsPerS
}
