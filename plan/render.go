package plan

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
)

// File is the name of the plan written beside the run.
const File = "plan.json"

// WriteText writes the plan for the console, every figure with the
// formula that gives it and the run's numbers in it.
func (p Plan) WriteText(w io.Writer) error {
	l, o := p.Level, p.Options
	ew := &errWriter{w: w}
	ew.printf("Fleet plan from %s\n", p.Run)
	if p.SLO != "" {
		ew.printf("SLO: %s\n", p.SLO)
	}
	ew.printf("Level: %s\n\n", p.Why)
	ew.printf("Measured at %s (%s, per replica):\n", l.Key, plural(l.Repeats, "repeat"))
	if l.Open {
		ew.printf("  X       achieved_rps          %.4f req/s (offered %.4f req/s [%g nominal])\n", l.RequestsPerS, l.OfferedRPS, l.Rate)
		ew.printf("  L       inflight_mean         %.4f requests in flight (measured)\n", l.Users)
	} else {
		ew.printf("  X       requests_per_s        %.4f req/s (steady window)\n", l.RequestsPerS)
	}
	ew.printf("  T       aggregate_output_tps  %.3f tok/s\n", l.OutputTPS)
	ew.printf("  E[E2E]  mean e2e latency      %.4f s (over %s)\n", l.MeanE2E.Seconds(), plural(l.E2ERequests, "successful request"))
	if l.ClientLimited {
		ew.printf("  caution: %s was client-limited; its figures may describe the load generator, not the server\n", l.Key)
	}
	ew.printf("\nReplicas for a peak of λ = %g req/s at headroom h = %g:\n", o.PeakRPS, o.Headroom)
	ew.printf("  replicas = ceil(λ / (X × h)) = ceil(%g / (%.4f × %g)) = ceil(%.3f) = %d; N+1 (one spare): %d\n",
		o.PeakRPS, l.RequestsPerS, o.Headroom, o.PeakRPS/(l.RequestsPerS*o.Headroom), p.Replicas, p.ReplicasN1)
	if o.Users > 0 {
		ew.printf("\nReplicas for N = %d concurrent users at headroom h = %g:\n", o.Users, o.Headroom)
		ew.printf("  replicas = ceil(N / (%s × h)) = ceil(%d / (%g × %g)) = ceil(%.3f) = %d; N+1 (one spare): %d\n",
			l.usersSymbol(), o.Users, l.Users, o.Headroom, float64(o.Users)/(l.Users*o.Headroom), p.UserReplicas, p.UserReplicasN1)
	}
	ew.printf("\nLittle's law links users and rate, X = %s / E[E2E]:\n", l.usersSymbol())
	ew.printf("  %.6g / %.4f s = %.4f req/s predicted; %s measured %.4f req/s (%+.1f%%)\n",
		l.Users, l.MeanE2E.Seconds(), p.LittleRPS, l.xName(), l.RequestsPerS, 100*(p.LittleRPS/l.RequestsPerS-1))
	ew.printf("\nTokens per day per replica:\n")
	ew.printf("  T × 86400 = %.3f × 86400 = %.0f output tokens/day (%.1fM)\n", l.OutputTPS, p.TokensPerDay, p.TokensPerDay/1e6)
	if o.priced() {
		ew.printf("\nCost per million output tokens (G GPUs per replica at $P per GPU-hour):\n")
		ew.printf("  G × P / (T × 3600) × 1e6 = %g × %g / (%.3f × 3600) × 1e6 = $%.4f\n",
			o.GPUsPerReplica, o.GPUHourUSD, l.OutputTPS, p.CostPerMTok)
	}
	return ew.err
}

// usersSymbol is what Users is: C, or L, the measured mean in flight of
// an open-loop level.
func (l Level) usersSymbol() string {
	if l.Open {
		return "L"
	}
	return "C"
}

// xName is X's column: requests_per_s, or an open loop's achieved_rps.
func (l Level) xName() string {
	if l.Open {
		return "achieved_rps"
	}
	return "requests_per_s"
}

// JSON is the plan as plan.json holds it.
type JSON struct {
	Run      string    `json:"run"`
	SLO      string    `json:"slo,omitempty"`
	Basis    Basis     `json:"basis"`
	Why      string    `json:"why"`
	Level    LevelJSON `json:"level"`
	PeakRPS  float64   `json:"peak_rps"`
	Headroom float64   `json:"headroom"`
	Replicas int       `json:"replicas"`
	// ReplicasN1 is Replicas plus one spare.
	ReplicasN1     int      `json:"replicas_n_plus_1"`
	Users          *int     `json:"users,omitempty"`
	UserReplicas   *int     `json:"user_replicas,omitempty"`
	UserReplicasN1 *int     `json:"user_replicas_n_plus_1,omitempty"`
	LittleRPS      float64  `json:"little_rps"`
	TokensPerDay   float64  `json:"output_tokens_per_day_per_replica"`
	GPUsPerReplica *float64 `json:"gpus_per_replica,omitempty"`
	GPUHourUSD     *float64 `json:"gpu_hour_usd,omitempty"`
	CostPerMTok    *float64 `json:"usd_per_million_output_tokens"`
	// Formulas states how each figure above is computed.
	Formulas map[string]string `json:"formulas"`
}

// LevelJSON is the chosen level in plan.json.
type LevelJSON struct {
	Key           string  `json:"key"`
	Concurrency   int     `json:"concurrency"`
	Rate          float64 `json:"rate,omitempty"`        // open loop: the nominal offered rate
	OfferedRPS    float64 `json:"offered_rps,omitempty"` // open loop: the realised offered rate
	Repeats       int     `json:"repeats"`
	Users         float64 `json:"users"`
	RequestsPerS  float64 `json:"requests_per_s"`
	OutputTPS     float64 `json:"aggregate_output_tps"`
	E2EMeanS      float64 `json:"e2e_latency_mean_s"`
	E2ERequests   int     `json:"e2e_requests"`
	ClientLimited bool    `json:"client_limited"`
}

// Formulas are the plan's formulas, as the output and docs/metrics.md state them.
var Formulas = map[string]string{
	"replicas":                          "ceil(peak_rps / (requests_per_s × headroom))",
	"replicas_n_plus_1":                 "replicas + 1",
	"user_replicas":                     "ceil(users / (concurrency × headroom))",
	"user_replicas_n_plus_1":            "user_replicas + 1",
	"little_rps":                        "concurrency / e2e_latency_mean_s",
	"output_tokens_per_day_per_replica": "aggregate_output_tps × 86400",
	"usd_per_million_output_tokens":     "gpus_per_replica × gpu_hour_usd / (aggregate_output_tps × 3600) × 1e6",
}

// ToJSON converts p for plan.json.
func (p Plan) ToJSON() JSON {
	l, o := p.Level, p.Options
	j := JSON{
		Run: p.Run, SLO: p.SLO, Basis: p.Basis, Why: p.Why,
		Level: LevelJSON{Key: l.Key, Concurrency: l.Concurrency, Rate: l.Rate, OfferedRPS: l.OfferedRPS, Repeats: l.Repeats, Users: l.Users,
			RequestsPerS: l.RequestsPerS, OutputTPS: l.OutputTPS, E2EMeanS: l.MeanE2E.Seconds(),
			E2ERequests: l.E2ERequests, ClientLimited: l.ClientLimited},
		PeakRPS: o.PeakRPS, Headroom: o.Headroom, Replicas: p.Replicas, ReplicasN1: p.ReplicasN1,
		LittleRPS: p.LittleRPS, TokensPerDay: p.TokensPerDay, Formulas: Formulas,
	}
	if o.Users > 0 {
		j.Users, j.UserReplicas, j.UserReplicasN1 = &o.Users, &p.UserReplicas, &p.UserReplicasN1
	}
	if o.priced() && !math.IsNaN(p.CostPerMTok) {
		j.GPUsPerReplica, j.GPUHourUSD, j.CostPerMTok = &o.GPUsPerReplica, &o.GPUHourUSD, &p.CostPerMTok
	}
	return j
}

// WriteJSON writes p as indented JSON followed by a newline.
func (p Plan) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // "<" in a failing criterion stays readable
	enc.SetIndent("", "  ")
	return enc.Encode(p.ToJSON())
}

func plural(n int, what string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// errWriter keeps the first write error, so a renderer checks once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
