// Package rate is the open loop at offered request rates: each level's
// arrivals drawn from an arrival process (constant, Poisson, gamma) at one
// rate, whatever the server does, at most the cap (--max-concurrency) in
// flight; levels keyed by the nominal rate (--rates, a list or auto: the
// openloop.Search). Mode is its one type, the engine side (sweep.Mode)
// and the command side (app's) at once.
package rate
