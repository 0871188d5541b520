// Package search owns the adaptive searches of a sweep: --levels auto
// (Levels, a sweep.Planner over concurrency: doubling, then bisection) and
// --rates auto (Rates, a sweep.RatePlanner over request rates: a ramp, then
// a geometric bisection), and the judges that give each search its verdict
// on a finished level from the figures (JudgeLevels, JudgeRates). It decides
// which level runs next; it does not run levels or print figures.
package search
