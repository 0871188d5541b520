// Package sweep owns time and concurrency: it runs closed-loop worker pools at
// increasing concurrency levels against one endpoint and hands each level's
// raw records to the caller as soon as the level ends.
//
// A level at concurrency C starts C workers. Each worker takes a ticket,
// issues one request, waits for it to finish and takes the next ticket (a
// closed loop: at most C requests are ever in flight). The first Warmup
// tickets of a level are warm-up requests, sent but flagged so that report
// leaves them out of every figure. A level ends when its tickets run out
// (Completed), when its Duration has passed since its first measured request
// (Deadline), when the context is canceled (Canceled), or when every request
// failed with the same client-side HTTP error (Aborted: the sweep stops rather
// than hammer a server that refuses the requests).
//
// Each worker appends to its own slice of records; the slices are merged after
// the pool is done. A failed request is data in its record, never an error
// that stops the level. Nothing here prints; figures are report's business.
package sweep
