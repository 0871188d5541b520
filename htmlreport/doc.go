// Package htmlreport writes a run's charts and its report.html: one
// self-contained page (no network, no script, charts embedded as SVG data
// URIs) with the SLO verdict when there is one, the run's charts, the
// per-level tables, the run's configuration and the metric definitions of
// docs/metrics.md, embedded verbatim. It takes the same inputs as the
// console renderer (report.Summary and []report.LevelStats) and computes no
// figure of its own.
package htmlreport
