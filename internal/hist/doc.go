// Package hist is a log-bucketed histogram of weighted values, for the
// figures pooled over every token chunk of a level (ITL, client delay):
// its size depends on the spread of the values, never on their number.
//
// Bucket i holds the values v with γ^(i−1) < v ≤ γ^i, γ = (1+α)/(1−α), and
// reports 2γ^i/(γ+1), which is within a relative error α of every value in
// the bucket (the HdrHistogram and DDSketch idea). Zero and negative values
// have buckets of their own, mirrored for the negatives. Percentiles are the
// weighted nearest rank of pct.WeightedPercentile, answered with the
// reported value of the bucket that holds that rank, clamped to the
// smallest and largest value that bucket was given: so they are within
// RelErr of the exact weighted nearest rank, and exact when the bucket
// holds one distinct value (evenly paced tokens, hand-made records).
package hist
