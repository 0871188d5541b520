package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/client/promscrape"
	"github.com/toksweep/toksweep/report"
)

// gpuMetricsFlag is --gpu-metrics-url, one dcgm-exporter endpoint per GPU
// host, sampled during each level like --metrics-url.
func gpuMetricsFlag(o *options) cli.Flag {
	return &cli.GenericFlag{Name: "gpu-metrics-url", Value: appendTo{&o.Work.GPUURLs},
		Usage: "a GPU host's dcgm-exporter endpoint (e.g. http://HOST:9400/metrics), sampled during each level for power, memory and energy (repeatable: one per host)"}
}

// appendTo is a repeatable flag's value: each use appends one, in order,
// without a comma split (a URL may hold commas).
type appendTo struct{ dst *[]string }

func (a appendTo) Set(v string) error { *a.dst = append(*a.dst, v); return nil }

func (a appendTo) String() string {
	if a.dst == nil {
		return ""
	}
	return strings.Join(*a.dst, " ")
}

// checkGPUMetrics checks the --gpu-metrics-url values: http(s) URLs, each
// given once.
func (o *options) checkGPUMetrics() error {
	for i, u := range o.Work.GPUURLs {
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return usagef("invalid --gpu-metrics-url %q: want http(s)://HOST:PORT/metrics", promscrape.ShowURL(u))
		}
		if slices.Contains(o.Work.GPUURLs[:i], u) {
			return usagef("--gpu-metrics-url %s is given twice: its GPUs would count twice", promscrape.ShowURL(u))
		}
	}
	return nil
}

// findGPUs scrapes each --gpu-metrics-url once before any load: an endpoint
// that fails, or exports none of the fields read, is an error (it was
// asked for by name).
func (w *workSettings) findGPUs(ctx context.Context, o *options, stderr io.Writer) error {
	if len(w.GPUURLs) == 0 {
		return nil
	}
	s := &promscrape.GPUSampler{URLs: w.GPUURLs, Interval: w.MetricsInterval, Client: metricsClient(o)}
	scrub := o.scrubber()
	n := 0
	for _, u := range w.GPUURLs {
		gpus, err := s.Scrape(ctx, u)
		if err != nil {
			return errors.New("--gpu-metrics-url: " + scrub(err.Error()))
		}
		if !slices.ContainsFunc(gpus, func(g promscrape.GPUReading) bool { return g.Known() }) {
			return fmt.Errorf("--gpu-metrics-url %s exports none of dcgm-exporter's fields toksweep reads (%s, %s, %s, %s)",
				promscrape.ShowURL(u), promscrape.GPUNames.Power, promscrape.GPUNames.Util, promscrape.GPUNames.MemUsed, promscrape.GPUNames.Energy)
		}
		n += len(gpus)
	}
	w.gpu, w.scrubGPU = s, scrub
	fmt.Fprintf(stderr, "toksweep: GPU telemetry of %d GPUs from %d hosts, sampled at each level's start and end and in it from %v in (gaps doubling up to %v)\n",
		n, len(w.GPUURLs), promscrape.FirstSample, cmp.Or(s.Interval, promscrape.DefaultInterval))
	return nil
}

// gpuNotes is the line under a level's status line with its GPU figures,
// or the warning that says which are missing.
func gpuNotes(s report.LevelStats) string {
	g := s.GPU
	if !g.Sampled {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n  GPUs: %d, util %s, memory %s MiB (max %s per GPU), power %s W, energy %s J (%s); %s tok/J, %s J/request",
		g.GPUs, gpuNum(g.UtilMean, 0, "%"), gpuNum(g.MemMean, 0, ""), gpuNum(g.MemMax, 0, ""), gpuNum(g.PowerMean, 0, ""),
		gpuNum(g.EnergyJ, 1, ""), cmp.Or(g.EnergySource, report.NoValue), gpuNum(g.TokensPerJ, 3, ""), gpuNum(g.JPerRequest, 1, ""))
	if g.Incomplete != "" {
		fmt.Fprintf(&b, "\ntoksweep: warning: %s: GPU telemetry incomplete, its totals are left empty: %s", report.LevelName(s), g.Incomplete)
	}
	if raw := s.Server.Raw; raw != nil && raw.GPU != nil && raw.GPU.Failures > 0 {
		fmt.Fprintf(&b, "\ntoksweep: warning: %s: %d scrapes of the GPU telemetry failed: %s", report.LevelName(s), raw.GPU.Failures, raw.GPU.Error)
	}
	return b.String()
}

func gpuNum(v float64, decimals int, unit string) string {
	if v != v { // NaN
		return "-"
	}
	return fmt.Sprintf("%.*f%s", decimals, v, unit)
}
