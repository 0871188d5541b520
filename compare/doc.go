// Package compare compares saved runs level by level. It is pure: it takes
// each run's raw levels (the per-request records are the source of truth)
// and returns a Table of estimates, which renderers write to an io.Writer
// as text or CSV. It prints nothing and reads no file.
//
// The first run is the baseline A; every other run (B, C, …) is compared
// with it on the levels the two share: levels of one key (sweep.LevelKey,
// so of one mode; runs of different modes share none). Repetitions of a level
// (--repeat; each sweep.Level is one) are pooled for the point estimates:
// their successful measured requests form one sample. Each repetition's own
// figures (report.Summarize of it alone) are kept for the interval.
//
// For each shared level it estimates four figures and their ratio B/A:
//
//   - per-stream decode tok/s p50 (the headline): the median over requests
//     of report.RequestDecodeTPS;
//   - TTFT p50 (report.RequestTTFT);
//   - TTFT p95;
//   - aggregate output tok/s: the mean over repetitions of each one's
//     figure over its steady-state window.
//
// # Intervals
//
// Where both sides ran the level at least MinRepeats times, every figure
// gets an interval between runs (Repeats): on the log scale, the pooled
// ratio times exp(±t·se), where se² = s²_A/k_A + s²_B/k_B over the logs of
// each side's per-repetition figures and t is Student's quantile with
// Welch–Satterthwaite degrees of freedom. A repetition's figure carries
// both the request-to-request and the run-to-run noise, so the interval
// includes both. A t-interval rather than a bootstrap over repetitions:
// with the usual two to five repetitions, resampling them cannot show more
// spread than the repetitions do (it understates the variance by (k−1)/k
// and its percentiles sit on the extreme repetitions), while t widens the
// interval by what so few runs cannot tell (t = 4.3 for two a side).
//
// Otherwise the medians get a block bootstrap (Requests): each side's
// successful measured requests, in start order, are resampled as circular
// blocks of consecutive requests (blockLength: ⌈n^(1/3)⌉, at least the
// level's concurrency, at most n/5), since neighbouring requests share
// batches and moments of machine load. The resampled statistic is the
// Harrell–Davis median, a smooth weighted mean of the order statistics; the
// interval is the shown ratio of nearest-rank medians times the central
// Confidence fraction of HD(b*)/HD(a*) ÷ HD(b)/HD(a) over Resamples
// resamples, so it always contains its estimate. Resampling is seeded
// (math/rand/v2 PCG, from Options.Seed, the run, the level and the
// figure), so the same inputs give the same intervals. This interval sees
// request-to-request noise only: run-to-run noise was not measured, and two
// back-to-back runs of one server can differ by more than it. TTFT p95 and
// the aggregate get no interval then: a tail percentile of a few hundred
// requests is too coarse to resample, and one window is one measurement.
// A side with fewer than MinSamples requests gets no interval.
//
// # Verdicts
//
// A difference is significant when the interval of B/A excludes 1, and
// meaningful when it is significant and |B/A − 1| is at least
// Options.MinEffect (the practical-significance floor, by default 2% in
// the command). Only a meaningful difference is called faster, slower,
// higher or lower; a significant one under the floor is "no meaningful
// difference". Each level is a separate test: with many levels, expect an
// occasional significant result by chance alone.
package compare
