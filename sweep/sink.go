package sweep

import (
	"cmp"
	"iter"
	"slices"
	"sync"

	"github.com/toksweep/toksweep/client"
)

// RecordSink takes a level's records as its requests finish and gives
// them back when the level ends, so that the sweep holds none: a sink that
// writes them out (rundir.RunDir, the level file) keeps a level's memory
// from growing with its requests and tokens.
type RecordSink interface {
	// AddRecord takes one finished request's record (warm-up included,
	// flagged). The sweep calls it from the workers' goroutines,
	// concurrently; it must not keep r.
	AddRecord(r *client.Record)
	// LevelRecords is called once, when the level's last request has
	// finished: it yields the records added during the level, one at a
	// time and anew each time it is ranged over, until the sink's next
	// level begins. The record yielded is only valid until the next. The
	// sweep hands it over as Level.Source.
	LevelRecords() iter.Seq[*client.Record]
}

var _ RecordSink = (*MemorySink)(nil)

// MemorySink is the RecordSink that holds the records in memory: the
// sweep's own when Config.Sink is nil (it then hands them over in
// Level.Records), and one for tests. A level's memory grows with its
// requests.
type MemorySink struct {
	mu   sync.Mutex
	recs []client.Record
}

// AddRecord keeps a copy of r. It is safe for concurrent use.
func (m *MemorySink) AddRecord(r *client.Record) {
	m.mu.Lock()
	m.recs = append(m.recs, *r)
	m.mu.Unlock()
}

// LevelRecords yields the records added since its previous call, sorted
// by start time (ties by ticket), and begins the next level.
func (m *MemorySink) LevelRecords() iter.Seq[*client.Record] {
	recs := m.take()
	return func(yield func(*client.Record) bool) {
		for i := range recs {
			if !yield(&recs[i]) {
				return
			}
		}
	}
}

// take returns the records added since its previous call, sorted by
// start time (ties by ticket), and begins the next level.
func (m *MemorySink) take() []client.Record {
	m.mu.Lock()
	recs := m.recs
	m.recs = nil
	m.mu.Unlock()
	slices.SortStableFunc(recs, func(a, b client.Record) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Seq, b.Seq))
	})
	return recs
}
