// Package chart draws toksweep's figures as PNG and SVG charts with the
// pure-Go gonum.org/v1/plot: five charts per run, six when requests
// failed (RunCharts), overlays of several runs (CompareCharts), and plan's
// Pareto front over several configurations (Pareto). Each
// Chart carries what it draws as plain data (series, SLO lines, marked
// levels), which the tests check instead of pixels. It takes
// report.LevelStats, draws no figure of its own, and writes only where it
// is told (Render to an io.Writer, WriteFiles to a directory). It keeps
// gonum out of report.
//
// Levels repeated with --repeat are drawn at the mean of their repetitions.
// The concurrency axis is logarithmic (base 2) when the levels span a
// factor of 4 or more, with a tick at every level.
package chart
