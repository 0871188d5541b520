package plan

import (
	"math"

	"github.com/toksweep/toksweep/report"
)

// JoulesPerKWh converts joules to kilowatt-hours.
const JoulesPerKWh = 3.6e6

// pooledTokensPerJ is the output tokens per joule of a level's repeats,
// Σ tokens / Σ energy (report.GPUStats); NaN unless every repeat has its
// GPUs' energy: a plan never prices energy on part of the level.
func pooledTokensPerJ(stats []report.LevelStats, runs []int) float64 {
	var tokens, joules float64
	for _, i := range runs {
		g := stats[i].GPU
		if !g.Sampled || !(g.EnergyJ > 0) {
			return math.NaN()
		}
		tokens += float64(g.OutputTokens)
		joules += g.EnergyJ
	}
	return tokens / joules
}

// kwhPerMTok is the energy of a million output tokens at tokPerJ output
// tokens per joule, in kWh; NaN without a figure.
func kwhPerMTok(tokPerJ float64) float64 {
	if !(tokPerJ > 0) || math.IsInf(tokPerJ, 0) {
		return math.NaN()
	}
	return 1e6 / tokPerJ / JoulesPerKWh
}

// writeEnergy states the energy per million output tokens, when the run
// measured the GPUs' energy at the level.
func (p Plan) writeEnergy(ew *errWriter) {
	if math.IsNaN(p.KWhPerMTok) {
		return
	}
	ew.printf("\nEnergy per million output tokens (the GPUs' telemetry, gpu_output_tokens_per_j pooled over repeats):\n")
	ew.printf("  1e6 / (tok/J × 3.6e6) = 1e6 / (%.4f × 3.6e6) = %.4f kWh (%.0f J)\n", p.Level.TokensPerJ, p.KWhPerMTok, 1e6/p.Level.TokensPerJ)
}
