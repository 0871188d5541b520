package sweep

import (
	"context"

	"github.com/toksweep/toksweep/client/promscrape"
)

// ServerSampler observes the server itself while a level runs, through the
// server's own metrics endpoint. Run calls it as the level's workers are
// about to start, with the level's concurrency and a channel closed when
// the level's load ends (its last request handed out to be sent, or its
// deadline; never, for a level canceled first), and calls the stop function it returns once its
// requests have all finished; what stop returns becomes Level.Server. It
// must not fail the level: a server that cannot be scraped is recorded in
// the returned metrics (promscrape.Sampler.StartLevel has this shape).
//
// The metrics type belongs to promscrape, which produces it, as
// client.Record belongs to client: sweep only carries it to report.
type ServerSampler func(ctx context.Context, c int, loadEnd <-chan struct{}) (stop func() *promscrape.LevelMetrics)

// start runs s for a level; a nil sampler observes nothing.
func (s ServerSampler) start(ctx context.Context, c int, loadEnd <-chan struct{}) func() *promscrape.LevelMetrics {
	if s == nil {
		return func() *promscrape.LevelMetrics { return nil }
	}
	return s(ctx, c, loadEnd)
}
