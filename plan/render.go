package plan

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/toksweep/toksweep/internal/english"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
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
	ew.printf("Measured at %s (%s, per replica):\n", l.Key, english.Plural(l.Repeats, "repeat"))
	if l.Open {
		ew.printf("  X       achieved_rps          %.4f req/s, at %s\n", l.RequestsPerS, l.key.Words().Load(l.key, l.OfferedRPS, ""))
		ew.printf("  L       inflight_mean         %.4f requests in flight (measured)\n", l.Users)
	} else {
		ew.printf("  X       requests_per_s        %.4f req/s (steady window)\n", l.RequestsPerS)
	}
	ew.printf("  T       aggregate_output_tps  %.3f tok/s\n", l.OutputTPS)
	ew.printf("  E[E2E]  mean e2e latency      %.4f s (over %s)\n", l.MeanE2E.Seconds(), english.Plural(l.E2ERequests, "successful request"))
	if l.ClientLimited {
		ew.printf("  caution: %s\n", l.caution())
	}
	if l.key.RunsSessions() {
		p.writeSessions(ew)
	}
	ew.printf("\nReplicas for a peak of λ = %g req/s at headroom h = %g:\n", o.PeakRPS, o.Headroom)
	ew.printf("  replicas = ceil(λ / (X × h)) = ceil(%g / (%.4f × %g)) = ceil(%.3f) = %d; N+1 (one spare): %d\n",
		o.PeakRPS, l.RequestsPerS, o.Headroom, o.PeakRPS/(l.RequestsPerS*o.Headroom), p.Replicas, p.ReplicasN1)
	if p.Basis == BasisBound {
		ew.printf("  at most %s: each replica held %.4f req/s (%s)%s; its capacity may be higher — %s\n",
			english.Plural(p.Replicas, "replica"), l.RequestsPerS, l.highest(), l.unsaturated(), l.tighten())
	}
	if o.Users > 0 {
		ew.printf("\nReplicas for N = %d %s at headroom h = %g:\n", o.Users, l.usersUnit(), o.Headroom)
		ew.printf("  replicas = ceil(N / (%s × h)) = ceil(%d / (%s × %g)) = ceil(%.3f) = %d; N+1 (one spare): %d\n",
			l.usersSymbol(), o.Users, places4(l.Users), o.Headroom, float64(o.Users)/(l.Users*o.Headroom), p.UserReplicas, p.UserReplicasN1)
		if p.Basis == BasisBound {
			ew.printf("  at most %s: each replica held %s = %s %s (%s); it may hold more — %s\n",
				english.Plural(p.UserReplicas, "replica"), l.usersSymbol(), places4(l.Users), l.usersUnit(), l.highest(), l.tighten())
		}
	}
	ew.printf("\nLittle's law links users and rate, X = %s / E[E2E]:\n", l.usersSymbol())
	ew.printf("  %s / %.4f s = %.4f req/s predicted; %s measured %.4f req/s (%+.1f%%)\n",
		places4(l.Users), l.MeanE2E.Seconds(), p.LittleRPS, l.xName(), l.RequestsPerS, 100*(p.LittleRPS/l.RequestsPerS-1))
	ew.printf("\nTokens per day per replica:\n")
	ew.printf("  T × 86400 = %.3f × 86400 = %.0f output tokens/day (%.1fM)%s\n", l.OutputTPS, p.TokensPerDay, p.TokensPerDay/1e6, p.bound(", at least"))
	if o.priced() {
		ew.printf("\nCost per million output tokens (G GPUs per replica at $P per GPU-hour):\n")
		ew.printf("  G × P / (T × 3600) × 1e6 = %g × %g / (%.3f × 3600) × 1e6 = $%.4f%s\n",
			o.GPUsPerReplica, o.GPUHourUSD, l.OutputTPS, p.CostPerMTok, p.bound(", at most"))
	}
	p.writeEnergy(ew)
	writeTiers(ew, p.Tiers, p.Options)
	return ew.err
}

// writeSessions is a session level's answer in sessions: what one
// replica holds and completes, and the peak in sessions per second.
func (p Plan) writeSessions(ew *errWriter) {
	sl, o, f := p.Level.Sessions, p.Options, p.sessionFigures()
	ew.printf("\nIn sessions (a multi-turn run: each of C sessions runs one turn, one request, at a time):\n")
	ew.printf("  C       concurrent sessions   %d per replica; planned at C × h = %d × %g = %.4g concurrent sessions\n", sl.Concurrent, sl.Concurrent, o.Headroom, f.PlannedConcurrent)
	ew.printf("  turns   session_turns_mean    %.4f successful turns per session (over %s)\n", sl.TurnsMean, english.Plural(sl.Measured, "session"))
	if !(sl.TurnsMean > 0) {
		ew.printf("  no session completed a turn: the level gives no session rate\n")
		return
	}
	ew.printf("  Xs      sessions per second   X / turns = %.4f / %.4f = %.4f sessions/s per replica (%.0f sessions/day)%s\n", p.Level.RequestsPerS, sl.TurnsMean, sl.PerSecond, f.PerDay, p.bound(", at least"))
	ew.printf("  the peak λ = %g req/s counts turns: λ / turns = %g / %.4f = %.4f sessions/s\n", o.PeakRPS, o.PeakRPS, sl.TurnsMean, f.PeakPerSecond)
}

// bound is mark after a figure of a plan that is a bound (BasisBound),
// "" after one of a plan that is not.
func (p Plan) bound(mark string) string {
	if p.Basis != BasisBound {
		return ""
	}
	return mark
}

// highest names the level a bound rests on: "the highest rate measured",
// "C=4, the highest level measured".
func (l Level) highest() string {
	if l.Open {
		return "the highest " + levelWord(l.key, false) + " measured"
	}
	return l.Key + ", the highest level measured"
}

// unsaturated is what an open-loop level's stable verdict adds to a
// bound: its queue did not grow. A closed loop's level says nothing of
// the kind (no knee may mean too few levels to find one).
func (l Level) unsaturated() string {
	if l.Open {
		return " without saturating"
	}
	return ""
}

// tighten is the advice that ends a bound: "measure higher rates or add
// --slo-* to tighten".
func (l Level) tighten() string {
	return "measure higher " + levelWord(l.key, true) + " or add --slo-* to tighten"
}

// caution is the caution about a level flagged client-limited, worded as
// the report's closing paragraph words it (report.ClientLimitedCaution):
// "C=16 may have been client-limited; its figures …", "rate=16/s was …".
func (l Level) caution() string { return report.ClientLimitedCaution([]sweep.LevelKey{l.key}) }

// usersUnit is what --users counts at the level, in its mode's words
// (sweep.Words.Users): concurrent users, a multi-turn level's concurrent
// sessions.
func (l Level) usersUnit() string { return l.key.Words().Users }

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
	// Bounds, in a plan of basis "bound", says which way each figure
	// bounds the truth (Bounds); absent otherwise.
	Bounds map[string]string `json:"bounds,omitempty"`
	// KWhPerMTok is the GPUs' energy per million output tokens; absent
	// when the run did not measure it.
	KWhPerMTok *float64 `json:"kwh_per_million_output_tokens,omitempty"`
	// Tiers is the plan at each SLO tier's answer level (sweep
	// --slo-tier); absent for a run without tiers.
	Tiers []TierJSON `json:"tiers,omitempty"`
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
	// Sessions: a multi-turn level's figures in sessions; absent otherwise.
	Sessions *SessionsJSON `json:"sessions,omitempty"`
}

// SessionsJSON is a session level's answer in sessions, in plan.json.
type SessionsJSON struct {
	Concurrent        int     `json:"concurrent_sessions"`
	PlannedConcurrent float64 `json:"planned_concurrent_sessions"`
	Measured          int     `json:"sessions"`
	TurnsMean         float64 `json:"session_turns_mean"`
	PerSecond         float64 `json:"sessions_per_s"`
	PerDay            float64 `json:"sessions_per_day_per_replica"`
	PeakPerSecond     float64 `json:"peak_sessions_per_s"`
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
	"kwh_per_million_output_tokens":     "1e6 / (gpu_output_tokens_per_j × 3.6e6)",
	"planned_concurrent_sessions":       "concurrent_sessions × headroom",
	"sessions_per_s":                    "requests_per_s / session_turns_mean",
	"sessions_per_day_per_replica":      "sessions_per_s × 86400",
	"peak_sessions_per_s":               "peak_rps / session_turns_mean",
	"usd_per_session":                   "gpus_per_replica × gpu_hour_usd / (sessions_per_s × 3600)",
}

// Bounds are the figures of a plan of basis "bound" and which way each
// bounds the one a saturated level would give: a replica held the level,
// so it does at least as much (tokens, sessions) and fewer replicas may do.
var Bounds = map[string]string{
	"replicas":                          "at most",
	"replicas_n_plus_1":                 "at most",
	"user_replicas":                     "at most",
	"user_replicas_n_plus_1":            "at most",
	"output_tokens_per_day_per_replica": "at least",
	"usd_per_million_output_tokens":     "at most",
	"sessions_per_s":                    "at least",
	"sessions_per_day_per_replica":      "at least",
	"usd_per_session":                   "at most",
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
		LittleRPS: p.LittleRPS, TokensPerDay: p.TokensPerDay, Formulas: Formulas, Tiers: tiersJSON(p.Tiers),
	}
	if p.Basis == BasisBound {
		j.Bounds = Bounds
	}
	if sl := l.Sessions; l.key.RunsSessions() && sl.TurnsMean > 0 {
		f := p.sessionFigures()
		j.Level.Sessions = &SessionsJSON{Concurrent: sl.Concurrent, PlannedConcurrent: f.PlannedConcurrent, Measured: sl.Measured,
			TurnsMean: sl.TurnsMean, PerSecond: sl.PerSecond, PerDay: f.PerDay, PeakPerSecond: f.PeakPerSecond}
	}
	if o.Users > 0 {
		j.Users, j.UserReplicas, j.UserReplicasN1 = &o.Users, &p.UserReplicas, &p.UserReplicasN1
	}
	if !math.IsNaN(p.KWhPerMTok) {
		j.KWhPerMTok = &p.KWhPerMTok
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

// places4 writes v to 4 decimal places, as the measured lines above the
// arithmetic give it, without trailing zeros: a closed loop's C as 8, a
// measured 9.265870 requests in flight as 9.2659.
func places4(v float64) string {
	return strconv.FormatFloat(math.Round(v*1e4)/1e4, 'f', -1, 64)
}
