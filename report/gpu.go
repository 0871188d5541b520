package report

import (
	"math"
	"slices"

	"github.com/toksweep/toksweep/client/promscrape"
	"github.com/toksweep/toksweep/sweep"
)

// GPUStats is the GPUs' account of a level, from dcgm-exporter endpoints
// (--gpu-metrics-url): the totals over every GPU (promscrape.GPUTotals,
// NaN where incomplete) and the energy per output token and per request.
// Every figure is undefined when Sampled is false.
type GPUStats struct {
	Sampled bool
	promscrape.GPUTotals
	// OutputTokens and Requests are the level's successful requests,
	// warm-up included, and their output tokens: the work the GPUs did
	// over the sampled span, which bounds every request of the level.
	OutputTokens, Requests int
	TokensPerJ             float64 // OutputTokens / EnergyJ
	JPerRequest            float64 // EnergyJ / Requests
}

// gpuStats computes l's GPU figures, reading its records once more only
// when its GPUs were sampled.
func gpuStats(l sweep.Level) GPUStats {
	s := GPUStats{TokensPerJ: math.NaN(), JPerRequest: math.NaN()}
	s.UtilMean, s.MemMean, s.MemMax, s.PowerMean, s.EnergyJ = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
	if l.Server == nil || l.Server.GPU == nil {
		return s
	}
	s.Sampled, s.GPUTotals = true, l.Server.GPU.Totals()
	for r := range l.All() {
		if r.OK() {
			s.Requests++
			s.OutputTokens += r.OutputTokens()
		}
	}
	if s.EnergyJ > 0 {
		s.TokensPerJ = float64(s.OutputTokens) / s.EnergyJ
		if s.Requests > 0 {
			s.JPerRequest = s.EnergyJ / float64(s.Requests)
		}
	}
	return s
}

// gpuColumns are the GPUs' figures (GPUStats), empty when they were not
// sampled or are incomplete, shown in the GPU table beside the output rate.
func gpuColumns() []Column {
	show := func(stats []LevelStats) bool {
		return slices.ContainsFunc(stats, func(s LevelStats) bool { return s.GPU.Sampled })
	}
	num := func(name, unit, def, head string, decimals, people int, f func(*GPUStats) float64) Column {
		return Column{Name: name, Unit: unit, Def: def, Out: InFiles, Table: GPUTable, Head: head, Show: show,
			Decimals: decimals, PeopleDecimals: people, Value: func(s *LevelStats) Value { return number(f(&s.GPU)) }}
	}
	return []Column{
		{Name: "gpu_count", Unit: "GPUs", Def: "GPUs in the telemetry of `--gpu-metrics-url`; empty when not sampled", Out: InFiles,
			Table: GPUTable, Head: "GPUs", Show: show, Value: func(s *LevelStats) Value { return countIf(s.GPU.Sampled, s.GPU.GPUs) }},
		num("gpu_util_mean", "%", "GPU utilisation, each GPU's mean over the in-level scrapes, averaged over the GPUs", "util %", 1, 1,
			func(g *GPUStats) float64 { return g.UtilMean }),
		num("gpu_mem_used_mean_mib", "MiB", "memory used, each GPU's mean over the in-level scrapes, summed", "mem MiB", 1, 0,
			func(g *GPUStats) float64 { return g.MemMean }),
		num("gpu_mem_used_max_mib", "MiB", "memory used, the largest in-level sample of any one GPU", "max MiB/GPU", 1, 0,
			func(g *GPUStats) float64 { return g.MemMax }),
		num("gpu_power_mean_w", "W", "power, each GPU's mean over the in-level scrapes, summed", "power W", 1, 1,
			func(g *GPUStats) float64 { return g.PowerMean }),
		num("gpu_energy_j", "J", "energy over the level, summed over the GPUs (`gpu_energy_source` says how)", "energy J", tpsDecimals, 1,
			func(g *GPUStats) float64 { return g.EnergyJ }),
		{Name: "gpu_energy_source", Def: "`counter` (the energy counter's increase), `power×time` (power mean × the level's span) or `mixed`", Out: InFiles,
			Table: GPUTable, Head: "by", Left: true, Show: show, Value: func(s *LevelStats) Value { return text(s.GPU.EnergySource) }},
		// Table only: the output rate, beside the energy figures.
		{Table: GPUTable, Head: "output tok/s", Show: show, PeopleDecimals: 1,
			Value: func(s *LevelStats) Value { return number(s.AggregateOutputTPS) }},
		num("gpu_output_tokens_per_j", "tok/J", "output tokens of the level's successful requests (warm-up included) / `gpu_energy_j`", "tok/J", fracDecimals, 3,
			func(g *GPUStats) float64 { return g.TokensPerJ }),
		num("gpu_j_per_request", "J", "`gpu_energy_j` / the level's successful requests (warm-up included)", "J/req", tpsDecimals, 1,
			func(g *GPUStats) float64 { return g.JPerRequest }),
		{Name: "gpu_incomplete", Def: "why GPU figures are empty (a host never answered, a GPU without a reading); empty when complete", Out: InFiles,
			Table: GPUTable, Head: "incomplete", Left: true, Show: show, Value: func(s *LevelStats) Value { return text(s.GPU.Incomplete) }},
	}
}
