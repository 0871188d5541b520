// Package plan sizes a fleet from a finished run: it picks the largest
// tested level that met the SLO (or, without an SLO, the knee), and turns
// its measured figures into replica counts for a peak arrival rate or a
// number of concurrent users, tokens per day and a cost per million output
// tokens. A multi-turn level is answered in sessions too (sessions.go).
// Choose plans several runs, each one server configuration with its own
// GPUs per replica, picks the cheapest fleet and finds the Pareto front of
// their levels, tokens/s per user against tokens/s per GPU (fleet.go,
// pareto.go). Make and Choose are pure (run data and options in, a Plan or
// a Choice out); WriteText and WriteJSON render them. Nothing here
// extrapolates beyond a measured level.
// docs/metrics.md ("Fleet plan") defines every figure.
package plan
