package report

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// SLO is a service-level objective for one replica. Zero rate and TTFT
// fields are not checked; ErrorRate is checked when set (a pointer to 0
// means "no failure allowed", nil means no error criterion).
// Any combination may be set. Per-stream rates are checked on the
// slowest tenth of users (p10), so that "each user gets at least X" holds
// for nine users in ten, not only for the median one.
type SLO struct {
	DecodeTPS float64       // decode_tps_p10 ≥ DecodeTPS
	E2ETPS    float64       // e2e_tps_p10 ≥ E2ETPS
	TTFTP95   time.Duration // ttft_p95 ≤ TTFTP95
	ErrorRate *float64      // requests_failed / (requests_ok + requests_failed) ≤ *ErrorRate; nil = unset
	MaxGapP95 time.Duration // max_gap_p95 ≤ MaxGapP95
	TPOTP99   time.Duration // tpot_p99 ≤ TPOTP99 (vLLM's TPOT)
	E2EP95    time.Duration // e2e_latency_p95 ≤ E2EP95 (vLLM's E2EL)
	// Classes, when set, judges the level class by class instead: each
	// class's row against its own SLO (classes.go); the level passes when
	// every class passes. The bounds above then only state the run's
	// --slo-* SLO, which goes to the classes without an SLO of their own.
	Classes []ClassSLO
}

// Set reports whether any criterion is set.
func (o SLO) Set() bool {
	for _, c := range o.Classes {
		if c.SLO.Set() {
			return true
		}
	}
	return o.DecodeTPS > 0 || o.E2ETPS > 0 || o.TTFTP95 > 0 || o.ErrorRate != nil || o.MaxGapP95 > 0 ||
		o.TPOTP99 > 0 || o.E2EP95 > 0
}

// String states the objective in words, e.g.
// "decode ≥ 40 tok/s (p10), TTFT p95 ≤ 2s".
func (o SLO) String() string {
	var parts []string
	if o.DecodeTPS > 0 {
		parts = append(parts, fmt.Sprintf("decode ≥ %g tok/s (p10)", o.DecodeTPS))
	}
	if o.E2ETPS > 0 {
		parts = append(parts, fmt.Sprintf("e2e ≥ %g tok/s (p10)", o.E2ETPS))
	}
	if o.TTFTP95 > 0 {
		parts = append(parts, fmt.Sprintf("TTFT p95 ≤ %v", o.TTFTP95))
	}
	if o.ErrorRate != nil {
		parts = append(parts, fmt.Sprintf("error rate ≤ %g%%", *o.ErrorRate*100))
	}
	if o.MaxGapP95 > 0 {
		parts = append(parts, fmt.Sprintf("max gap p95 ≤ %v", o.MaxGapP95))
	}
	if o.TPOTP99 > 0 {
		parts = append(parts, fmt.Sprintf("TPOT p99 ≤ %v", o.TPOTP99))
	}
	if o.E2EP95 > 0 {
		parts = append(parts, fmt.Sprintf("e2e latency p95 ≤ %v", o.E2EP95))
	}
	if len(o.Classes) > 0 {
		return strings.TrimPrefix(o.classesText(), "; ")
	}
	return strings.Join(parts, ", ")
}

// SLOResult is a level's verdict against an SLO.
type SLOResult struct {
	Pass   bool
	Failed []string // one entry per failing criterion, with the measured value
	// GoodputRatio is the share of the level's finished requests that
	// succeeded and met every per-request criterion (TTFT, TPOT and e2e
	// latency ≤ their bounds, decode and e2e rates ≥ theirs); GoodputRPS
	// is that share of achieved_rps. NaN when no request finished.
	GoodputRatio, GoodputRPS float64
}

// CheckSLO judges one level. A level without the figure a criterion needs
// (no successful request) fails that criterion.
func CheckSLO(s LevelStats, o SLO) SLOResult {
	var failed []string
	if o.DecodeTPS > 0 && !(s.DecodeTPSP10 >= o.DecodeTPS) {
		failed = append(failed, fmt.Sprintf("decode_tps_p10 %s < %g", fmtFig(s.DecodeTPSP10), o.DecodeTPS))
	}
	if o.E2ETPS > 0 && !(s.E2ETPSP10 >= o.E2ETPS) {
		failed = append(failed, fmt.Sprintf("e2e_tps_p10 %s < %g", fmtFig(s.E2ETPSP10), o.E2ETPS))
	}
	if o.TTFTP95 > 0 && (s.TTFTP95 == NoSample || s.TTFTP95 > o.TTFTP95) {
		failed = append(failed, fmt.Sprintf("ttft_p95 %s > %v", fmtDur(s.TTFTP95), o.TTFTP95))
	}
	if o.ErrorRate != nil {
		if rate := ErrorRate(s); !(rate <= *o.ErrorRate) {
			failed = append(failed, fmt.Sprintf("error rate %s > %g%%", fmtFig(rate*100)+"%", *o.ErrorRate*100))
		}
	}
	if o.MaxGapP95 > 0 && (s.MaxGapP95 == NoSample || s.MaxGapP95 > o.MaxGapP95) {
		failed = append(failed, fmt.Sprintf("max_gap_p95 %s > %v", fmtDur(s.MaxGapP95), o.MaxGapP95))
	}
	if o.TPOTP99 > 0 && (s.TPOTP99 == NoSample || s.TPOTP99 > o.TPOTP99) {
		failed = append(failed, fmt.Sprintf("tpot_p99 %s > %v", fmtDur(s.TPOTP99), o.TPOTP99))
	}
	if o.E2EP95 > 0 && (s.E2ELatencyP95 == NoSample || s.E2ELatencyP95 > o.E2EP95) {
		failed = append(failed, fmt.Sprintf("e2e_latency_p95 %s > %v", fmtDur(s.E2ELatencyP95), o.E2EP95))
	}
	if len(o.Classes) > 0 {
		failed = classFailures(s, o)
	}
	r := SLOResult{Pass: len(failed) == 0, Failed: failed}
	r.GoodputRatio, r.GoodputRPS = goodput(&s, o)
	return r
}

// ErrorRate is the failed share of measured requests; NaN without any.
func ErrorRate(s LevelStats) float64 {
	n := s.RequestsOK + s.RequestsFailed
	if n == 0 {
		return math.NaN()
	}
	return float64(s.RequestsFailed) / float64(n)
}

func fmtFig(v float64) string {
	if math.IsNaN(v) {
		return "none"
	}
	return fmt.Sprintf("%.1f", v)
}

func fmtDur(d time.Duration) string {
	if d == NoSample {
		return "none"
	}
	return d.Round(time.Millisecond).String()
}
