// Package pct is toksweep's one percentile method, nearest rank, as
// docs/metrics.md defines it. It is a leaf: report computes every figure
// with it, and sweep, compare and the benchmark tools import it (directly
// or through report) rather than re-deriving a rank.
package pct
