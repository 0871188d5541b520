package sweep

import (
	"context"
	"sync"
	"time"
)

// Arrivals is a level's arrival process: it decides when each of the
// level's requests is sent. The closed loop (ClosedLoop) and the open loop
// (OpenLoop) are its two implementations; both send through the same
// Sender, so they share the client, the records and the report.
//
// Arrive claims requests from s until s.Next reports that the level has no
// more work (or ctx ends), sends each with s.Send, and returns when every
// request it sent has finished.
type Arrivals interface {
	Arrive(ctx context.Context, s Sender)
}

// ArrivalsFunc adapts a function to Arrivals.
type ArrivalsFunc func(ctx context.Context, s Sender)

// Arrive calls f.
func (f ArrivalsFunc) Arrive(ctx context.Context, s Sender) { f(ctx, s) }

// Ticket is one claimed request of a level.
type Ticket struct {
	Seq    int  // sequence number within the level, warm-up first
	Warmup bool // a warm-up request, left out of every figure
	// gate, set by an open loop's feeder that hands the ticket over ahead
	// of its instant, is what Send waits on before sending (dispatch.go).
	gate gate
}

// Sender issues a level's requests for an Arrivals.
type Sender interface {
	// Next claims the level's next request; ok is false when the level has
	// no more work (count or deadline reached, or the level stopped).
	Next() (t Ticket, ok bool)
	// Send issues t as lane w (the closed loop's worker; the open loop's
	// request index) and returns when it has finished. sched is its
	// scheduled instant on the Doer's clock; 0 means "now" (closed loop:
	// the request is scheduled when it is sent). An open loop's
	// feeder (feed) calls it ahead of sched: Send builds the request, waits
	// for the feeder to open the ticket's gate at sched, then for a slot
	// under the level's cap on requests in flight, and sends; when the
	// feeder stops or ctx ends first, it sends nothing.
	Send(ctx context.Context, t Ticket, w int, sched time.Duration)
	// Now is the Doer's clock, the one sched is on.
	Now() time.Duration
	// Closed is closed when the level takes no more requests because its
	// Duration ran out, so that a feeder waiting for a far arrival stops
	// at the deadline rather than at the arrival.
	Closed() <-chan struct{}
}

// ClosedLoop is the closed-loop arrival process at concurrency c: c
// workers, each sending its next request as soon as its previous one
// finished, so that at most c requests are ever in flight.
func ClosedLoop(c int) Arrivals {
	return ArrivalsFunc(func(ctx context.Context, s Sender) {
		var wg sync.WaitGroup
		for w := range c {
			wg.Go(func() {
				for ctx.Err() == nil {
					t, ok := s.Next()
					if !ok {
						return
					}
					s.Send(ctx, t, w, 0)
				}
			})
		}
		wg.Wait()
	})
}

// OpenLoop is the open-loop arrival process: request i is scheduled at
// start + the plan's i-th offset, start being sendLead after Arrive is
// called, whatever the server does. The plan is drawn as the feeder goes,
// so no level holds its plan in memory. The feeder (feed) hands each
// request to a goroutine of its own ahead of its instant, which builds it
// and sends it at the instant (or stops when the level closes at its
// Duration). At most the level's cap (its key's Concurrency) are in
// flight; the others wait for a slot in the client (in arrival order), and
// that wait is part of their latency, which is measured from the scheduled
// instant.
func OpenLoop(plan Schedule) Arrivals {
	return ArrivalsFunc(func(ctx context.Context, s Sender) {
		feed(ctx, s, plan, func(t Ticket, i int, sched time.Duration) { s.Send(ctx, t, i, sched) })
	})
}
