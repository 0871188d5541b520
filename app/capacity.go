package app

import (
	"github.com/urfave/cli/v2"
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
	}, tierFlags(o)...)
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
