// Package sweep owns time and concurrency: it runs closed-loop worker pools at
// increasing concurrency levels, or open-loop arrivals at offered rates,
// against one endpoint and hands each level's raw records to the caller as
// soon as the level ends. The arrival process is the seam (Arrivals):
// ClosedLoop and OpenLoop send through the same Sender, so both loops share
// the client, the records and the report.
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
// An open-loop level at rate λ draws its plan of scheduled instants from
// the seed as it goes (RateSpec.Schedule); one feeder (dispatch.go) hands
// each request to a goroutine of its own a few milliseconds ahead of its
// absolute instant, which builds it, and opens its gate at the instant,
// waking on a timer, then napping (internal/nap) and yielding for the last
// 0.2 ms, so a slow server never delays later arrivals and a send is not
// late by the timer's granularity. Each record carries its scheduled
// instant (Sched), from which its latency counts.
//
// Each record goes, as its request finishes, to a RecordSink: Config.Sink
// when it is set (the run directory writes it to disk, so a level's memory
// does not grow with its requests), whose records the level's Source reads
// back; otherwise a MemorySink, whose records, sorted by start time, are
// the level's Records. A failed request is data in its record, never an error
// that stops the level. Nothing here prints; figures are report's business.
package sweep
