// Package compare compares saved runs level by level. It is pure: it takes
// each run's raw levels (the per-request records are the source of truth)
// and returns a Table of estimates, which renderers write to an io.Writer
// as text or CSV. It prints nothing and reads no file.
//
// The first run is the baseline A; every other run (B, C, …) is compared
// with it on the concurrency levels the two share. Repetitions of a level
// (--repeat) are pooled: their successful measured requests form one sample.
//
// For each shared level it estimates four figures and their ratio B/A:
//
//   - per-stream decode tok/s p50 (the headline): the median over requests
//     of report.RequestDecodeTPS, with a bootstrap confidence interval;
//   - TTFT p50 (report.RequestTTFT), with a bootstrap interval;
//   - TTFT p95, ratio only: a tail percentile of a few hundred requests is
//     too coarse to resample honestly;
//   - aggregate output tok/s, ratio only: it is one measurement over the
//     steady-state window (the mean over repetitions when there are
//     several), not a statistic over independent requests, so there is
//     nothing to resample without inventing a model of the window.
//
// # Bootstrap
//
// The interval is a percentile bootstrap: each resample draws nA requests
// from A's sample and nB from B's, with replacement, and takes the ratio of
// their medians (nearest rank, as report.Percentile); the interval is the
// central Confidence fraction of Resamples such ratios, again by nearest
// rank. Resampling is seeded (math/rand/v2 PCG, from Options.Seed, the run,
// the level and the figure), so the same inputs give the same intervals. A
// difference is significant when the interval of B/A excludes 1 (the
// interval of the relative difference B/A − 1 excludes 0). A side with fewer
// than MinSamples requests gets no interval. Each level is a separate test:
// with many levels, expect an occasional significant result by chance alone.
package compare
