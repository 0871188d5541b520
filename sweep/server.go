package sweep

import (
	"context"

	"github.com/toksweep/toksweep/client/promscrape"
)

// ServerSampler observes the server itself while a level runs, through the
// server's own metrics endpoint. Run calls it as the level's workers are
// about to start, with the level's concurrency, and calls the stop function
// it returns once they have all finished; what stop returns becomes
// Level.Server. It must not fail the level: a server that cannot be
// scraped is recorded in the returned metrics (promscrape.Sampler.Start has
// this shape).
//
// The metrics type belongs to promscrape, which produces it, as
// client.Record belongs to client: sweep only carries it to report.
type ServerSampler func(ctx context.Context, c int) (stop func() *promscrape.LevelMetrics)

// start runs s for a level; a nil sampler observes nothing.
func (s ServerSampler) start(ctx context.Context, c int) func() *promscrape.LevelMetrics {
	if s == nil {
		return func() *promscrape.LevelMetrics { return nil }
	}
	return s(ctx, c)
}
