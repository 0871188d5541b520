// Package fit fits the simulator's own parameters to measured runs: the
// model of a server is a sim.Config whose step costs, prefill costs and
// batch-slot limit were read from its records rather than set by hand.
//
// FromLevels reads every decode interval of every successful request (one
// step of the server's batch, whose sequences, context and prefills are
// reconstructed from the level's other requests) and the first token of
// every request sent to an idle server, fits the step-time model of
// sim.Config to them by non-negative least squares, and bootstraps the
// requests for intervals. A parameter the data cannot tell apart from
// another is left out with a sentence saying why and what to measure. The
// Model is written as model.json (WriteJSON), read back (Read) and set in
// a sim.Config (Apply), so that `serve-sim --sim-model` and `sweep --sim
// --sim-model` run the fitted server. docs/metrics.md defines the model and
// the fit.
package fit
