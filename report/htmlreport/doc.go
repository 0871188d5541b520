// Package htmlreport writes a run's charts and its report.html: one
// self-contained page (no network, no script, charts embedded as SVG data
// URIs) that opens with the answer (the sweep's closing paragraph), then
// the charts, the per-level tables, the run's configuration and, in words,
// the definitions of the figures its tables show (glossary; a link leads to
// docs/metrics.md for the exact ones). It takes the same inputs as the
// console renderer (report.Summary and []report.LevelStats) and computes no
// figure of its own.
package htmlreport
