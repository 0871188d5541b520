package app

import (
	"slices"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/report"
)

func capacityFlags(o *options) []cli.Flag {
	f := &o.Flags
	return append([]cli.Flag{
		&cli.Float64Flag{Name: "slo-decode-tps", Action: into(&f.SLODecodeTPS), Usage: "SLO: per-stream decode tok/s the slowest tenth of users must reach (decode_tps_p10)"},
		&cli.Float64Flag{Name: "slo-e2e-tps", Action: into(&f.SLOE2ETPS), Usage: "SLO: per-stream end-to-end tok/s the slowest tenth must reach (e2e_tps_p10)"},
		&cli.DurationFlag{Name: "slo-ttft-p95", Action: into(&f.SLOTTFTP95), Usage: "SLO: bound on TTFT p95, e.g. 2s"},
		&cli.Float64Flag{Name: "slo-error-rate", Action: into(&f.SLOErrorRate), Usage: "SLO: bound on the failed share of requests, e.g. 0.01"},
		&cli.DurationFlag{Name: "slo-max-gap", Action: into(&f.SLOMaxGap), Usage: "SLO: bound on the p95 of each request's longest pause between tokens (max_gap_p95), e.g. 1s"},
		&cli.DurationFlag{Name: "slo-tpot-p99", Action: into(&f.SLOTPOTP99), Usage: "SLO: bound on TPOT p99 (vLLM's TPOT, per request), e.g. 50ms"},
		&cli.DurationFlag{Name: "slo-e2e-p95", Action: into(&f.SLOE2EP95), Usage: "SLO: bound on e2e latency p95 (vLLM's E2EL, per request), e.g. 30s"},
	}, slices.Concat(tierFlags(o), twinFlags(o), classFlags(o))...)
}

// capacity checks the SLO flags.
func (o *options) capacity() error {
	f := &o.Flags
	v := sloValues{DecodeTPS: f.SLODecodeTPS, E2ETPS: f.SLOE2ETPS, TTFTP95: f.SLOTTFTP95, ErrorRate: f.SLOErrorRate,
		MaxGap: f.SLOMaxGap, TPOTP99: f.SLOTPOTP99, E2EP95: f.SLOE2EP95}
	slo, err := v.slo(func(bound string) string { return "--slo-" + bound })
	o.SLO = slo
	return err
}

// sloValues are an SLO's bounds as given, by the --slo-* flags or by one
// tier's bounds; nil is not given.
type sloValues struct {
	DecodeTPS, E2ETPS, ErrorRate     *float64
	TTFTP95, MaxGap, TPOTP99, E2EP95 *time.Duration
}

// slo checks v and makes its SLO; name names a bound, by its --slo-*
// flag's name without slo-, in the usage error.
func (v sloValues) slo(name func(bound string) string) (report.SLO, error) {
	switch {
	case v.DecodeTPS != nil && !(*v.DecodeTPS > 0):
		return report.SLO{}, usagef("invalid %s %v: want a positive rate", name("decode-tps"), *v.DecodeTPS)
	case v.E2ETPS != nil && !(*v.E2ETPS > 0):
		return report.SLO{}, usagef("invalid %s %v: want a positive rate", name("e2e-tps"), *v.E2ETPS)
	case v.TTFTP95 != nil && *v.TTFTP95 <= 0:
		return report.SLO{}, usagef("invalid %s %v: want a positive duration such as 2s", name("ttft-p95"), *v.TTFTP95)
	case v.ErrorRate != nil && !(*v.ErrorRate >= 0 && *v.ErrorRate <= 1):
		return report.SLO{}, usagef("invalid %s %v: want a share between 0 and 1, e.g. 0.01", name("error-rate"), *v.ErrorRate)
	case v.MaxGap != nil && *v.MaxGap <= 0:
		return report.SLO{}, usagef("invalid %s %v: want a positive duration such as 1s", name("max-gap"), *v.MaxGap)
	case v.TPOTP99 != nil && *v.TPOTP99 <= 0:
		return report.SLO{}, usagef("invalid %s %v: want a positive duration such as 50ms", name("tpot-p99"), *v.TPOTP99)
	case v.E2EP95 != nil && *v.E2EP95 <= 0:
		return report.SLO{}, usagef("invalid %s %v: want a positive duration such as 30s", name("e2e-p95"), *v.E2EP95)
	}
	return report.SLO{DecodeTPS: deref(v.DecodeTPS), E2ETPS: deref(v.E2ETPS), TTFTP95: deref(v.TTFTP95), ErrorRate: v.ErrorRate,
		MaxGapP95: deref(v.MaxGap), TPOTP99: deref(v.TPOTP99), E2EP95: deref(v.E2EP95)}, nil
}
