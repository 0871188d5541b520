package plan

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/toksweep/toksweep/internal/english"
)

// WriteText writes the choice for the console: each configuration's
// arithmetic, the cheapest, why each other one loses, and the Pareto
// points.
func (ch Choice) WriteText(w io.Writer) error {
	o := ch.Options
	ew := &errWriter{w: w}
	ew.printf("Fleet plan over %s for a peak of λ = %g req/s at headroom h = %g, P = $%g per GPU-hour\n", english.Plural(len(ch.Candidates), "configuration"), o.PeakRPS, o.Headroom, o.GPUHourUSD)
	if ch.SLO != "" {
		ew.printf("SLO: %s\n", ch.SLO)
	}
	ew.printf("cost = replicas × G × P, replicas = ceil(λ / (X × h)) at the level each run's plan rests on\n")
	for _, c := range ch.Candidates {
		ew.printf("\n%s (G = %s per replica):\n", c.name(), gpus(c.GPUs))
		if c.Plan == nil {
			ew.printf("  excluded: %s\n", c.Excluded)
			continue
		}
		p := c.Plan
		l := p.Level
		ew.printf("  level    %s (%s)\n", l.Key, p.Basis)
		ew.printf("  replicas ceil(%g / (%.4f × %g)) = ceil(%.3f) = %d%s\n", o.PeakRPS, l.RequestsPerS, o.Headroom, o.PeakRPS/(l.RequestsPerS*o.Headroom), p.Replicas, p.bound(", at most"))
		ew.printf("  cost     %d × %g × $%g = $%.2f/h (%s; $%.4f per million output tokens)%s\n", p.Replicas, c.GPUs, o.GPUHourUSD, c.USDPerHour, gpus(c.GPUsTotal), p.CostPerMTok, p.bound(", at most"))
		if !math.IsNaN(p.KWhPerMTok) {
			ew.printf("  energy   %.4f kWh per million output tokens (gpu_output_tokens_per_j %.4f)\n", p.KWhPerMTok, l.TokensPerJ)
		}
		if o.Users > 0 {
			ew.printf("  users    ceil(%d / (%.6g × %g)) = %d replicas for N = %d %s (not priced)\n", o.Users, l.Users, o.Headroom, p.UserReplicas, o.Users, l.usersUnit())
		}
		if l.ClientLimited {
			ew.printf("  caution: %s\n", l.caution())
		}
	}
	best := ch.Best()
	ew.printf("\nCheapest: %s, %s × %s = %s at $%.2f/h (N+1: %s, $%.2f/h).\n",
		best.name(), english.Plural(best.Plan.Replicas, "replica"), gpus(best.GPUs), gpus(best.GPUsTotal), best.USDPerHour, english.Plural(best.Plan.ReplicasN1, "replica"), float64(best.Plan.ReplicasN1)*best.GPUs*o.GPUHourUSD)
	for i, c := range ch.Candidates {
		if i != ch.Chosen {
			ew.printf("  %s loses: %s\n", c.name(), ch.why(i))
		}
	}
	ew.printf("\nPareto front, tokens/s per user (T / U) against tokens/s per GPU (T / G), every level of every run:\n")
	ew.printf("  %-12s %-4s %12s %12s  %s\n", "level", "slo", "tok/s/user", "tok/s/GPU", "run")
	for _, pt := range ch.Points {
		slo := "-"
		if pt.Pass != nil {
			slo = map[bool]string{true: "pass", false: "fail"}[*pt.Pass]
		}
		var marks []string
		if pt.Front {
			marks = append(marks, "front")
		}
		if pt.Chosen {
			marks = append(marks, "chosen")
		}
		mark := ""
		if len(marks) > 0 {
			mark = " (" + strings.Join(marks, ", ") + ")"
		}
		ew.printf("  %-12s %-4s %12.3f %12.3f  %s%s\n", pt.Level, slo, pt.PerUser, pt.PerGPU, pt.Run, mark)
	}
	return ew.err
}

// ChoiceJSON is the choice as plan.json holds it.
type ChoiceJSON struct {
	PeakRPS    float64         `json:"peak_rps"`
	Headroom   float64         `json:"headroom"`
	GPUHourUSD float64         `json:"gpu_hour_usd"`
	SLO        string          `json:"slo,omitempty"`
	Chosen     string          `json:"chosen"`
	Configs    []CandidateJSON `json:"configurations"`
	Pareto     []PointJSON     `json:"pareto"`
	// Formulas states how each figure is computed.
	Formulas map[string]string `json:"formulas"`
}

// CandidateJSON is one configuration in plan.json: its plan, or why it
// was excluded, and why it lost.
type CandidateJSON struct {
	Run            string  `json:"run"`
	GPUsPerReplica float64 `json:"gpus_per_replica"`
	Excluded       string  `json:"excluded,omitempty"`
	GPUs           float64 `json:"gpus,omitempty"`
	USDPerHour     float64 `json:"usd_per_hour,omitempty"`
	Loses          string  `json:"loses,omitempty"`
	Plan           *JSON   `json:"plan,omitempty"`
}

// PointJSON is one Pareto point in plan.json.
type PointJSON struct {
	Run     string  `json:"run"`
	Level   string  `json:"level"`
	PerUser float64 `json:"output_tps_per_user"`
	PerGPU  float64 `json:"output_tps_per_gpu"`
	Pass    *bool   `json:"slo_pass,omitempty"`
	Front   bool    `json:"front"`
	Chosen  bool    `json:"chosen"`
}

// ChoiceFormulas are the choice's formulas, as docs/metrics.md states them.
var ChoiceFormulas = map[string]string{
	"gpus":                "replicas × gpus_per_replica",
	"usd_per_hour":        "gpus × gpu_hour_usd",
	"chosen":              "the configuration of least usd_per_hour (a tie: the one given first)",
	"output_tps_per_user": "aggregate_output_tps / requests in flight (concurrency, or an open loop's inflight_mean)",
	"output_tps_per_gpu":  "aggregate_output_tps / gpus_per_replica",
	"front":               "no point has a higher output_tps_per_user and a higher output_tps_per_gpu (vLLM plot_pareto's rule, tolerance 1e-9)",
}

// ToJSON converts ch for plan.json.
func (ch Choice) ToJSON() ChoiceJSON {
	o := ch.Options
	j := ChoiceJSON{PeakRPS: o.PeakRPS, Headroom: o.Headroom, GPUHourUSD: o.GPUHourUSD, SLO: ch.SLO,
		Chosen: ch.Best().Run, Formulas: ChoiceFormulas, Configs: []CandidateJSON{}, Pareto: []PointJSON{}}
	for i, c := range ch.Candidates {
		cj := CandidateJSON{Run: c.Run, GPUsPerReplica: c.GPUs, Excluded: c.Excluded, GPUs: c.GPUsTotal, USDPerHour: c.USDPerHour, Loses: ch.why(i)}
		if c.Plan != nil {
			pj := c.Plan.ToJSON()
			cj.Plan = &pj
		}
		j.Configs = append(j.Configs, cj)
	}
	for _, pt := range ch.Points {
		j.Pareto = append(j.Pareto, PointJSON(pt))
	}
	return j
}

// WriteJSON writes ch as indented JSON followed by a newline.
func (ch Choice) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(ch.ToJSON())
}

// gpus is a GPU count in words: "1 GPU", "2 GPUs", "0.5 GPUs".
func gpus(g float64) string {
	if g == 1 {
		return "1 GPU"
	}
	return fmt.Sprintf("%g GPUs", g)
}
