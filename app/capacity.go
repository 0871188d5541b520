package app

import (
	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/report"
)

func capacityFlags(o *options) []cli.Flag {
	f := &o.Flags
	return []cli.Flag{
		&cli.Float64Flag{Name: "slo-decode-tps", Action: into(&f.SLODecodeTPS), Usage: "SLO: per-stream decode tok/s the slowest tenth of users must reach (decode_tps_p10)"},
		&cli.Float64Flag{Name: "slo-e2e-tps", Action: into(&f.SLOE2ETPS), Usage: "SLO: per-stream end-to-end tok/s the slowest tenth must reach (e2e_tps_p10)"},
		&cli.DurationFlag{Name: "slo-ttft-p95", Action: into(&f.SLOTTFTP95), Usage: "SLO: bound on TTFT p95, e.g. 2s"},
		&cli.Float64Flag{Name: "slo-error-rate", Action: into(&f.SLOErrorRate), Usage: "SLO: bound on the failed share of requests, e.g. 0.01"},
		&cli.DurationFlag{Name: "slo-max-gap", Action: into(&f.SLOMaxGap), Usage: "SLO: bound on the p95 of each request's longest pause between tokens (max_gap_p95), e.g. 1s"},
		&cli.DurationFlag{Name: "slo-tpot-p99", Action: into(&f.SLOTPOTP99), Usage: "SLO: bound on TPOT p99 (vLLM's TPOT, per request), e.g. 50ms"},
		&cli.DurationFlag{Name: "slo-e2e-p95", Action: into(&f.SLOE2EP95), Usage: "SLO: bound on e2e latency p95 (vLLM's E2EL, per request), e.g. 30s"},
	}
}

// capacity checks the SLO flags.
func (o *options) capacity() error {
	f := &o.Flags
	switch {
	case f.SLODecodeTPS != nil && !(*f.SLODecodeTPS > 0):
		return usagef("invalid --slo-decode-tps %v: want a positive rate", *f.SLODecodeTPS)
	case f.SLOE2ETPS != nil && !(*f.SLOE2ETPS > 0):
		return usagef("invalid --slo-e2e-tps %v: want a positive rate", *f.SLOE2ETPS)
	case f.SLOTTFTP95 != nil && *f.SLOTTFTP95 <= 0:
		return usagef("invalid --slo-ttft-p95 %v: want a positive duration such as 2s", *f.SLOTTFTP95)
	case f.SLOErrorRate != nil && !(*f.SLOErrorRate >= 0 && *f.SLOErrorRate <= 1):
		return usagef("invalid --slo-error-rate %v: want a share between 0 and 1, e.g. 0.01", *f.SLOErrorRate)
	case f.SLOMaxGap != nil && *f.SLOMaxGap <= 0:
		return usagef("invalid --slo-max-gap %v: want a positive duration such as 1s", *f.SLOMaxGap)
	case f.SLOTPOTP99 != nil && *f.SLOTPOTP99 <= 0:
		return usagef("invalid --slo-tpot-p99 %v: want a positive duration such as 50ms", *f.SLOTPOTP99)
	case f.SLOE2EP95 != nil && *f.SLOE2EP95 <= 0:
		return usagef("invalid --slo-e2e-p95 %v: want a positive duration such as 30s", *f.SLOE2EP95)
	}
	o.SLO = report.SLO{DecodeTPS: deref(f.SLODecodeTPS), E2ETPS: deref(f.SLOE2ETPS), TTFTP95: deref(f.SLOTTFTP95), ErrorRate: f.SLOErrorRate, MaxGapP95: deref(f.SLOMaxGap),
		TPOTP99: deref(f.SLOTPOTP99), E2EP95: deref(f.SLOE2EP95)}
	return nil
}
