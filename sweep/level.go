package sweep

import (
	"iter"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/client/promscrape"
)

// EndReason says why a level stopped issuing requests.
type EndReason string

// The end reasons, recorded per level in levels.csv and summary.json.
const (
	Completed EndReason = "completed" // all planned requests finished
	Deadline  EndReason = "deadline"  // --duration elapsed
	Canceled  EndReason = "canceled"  // the run was interrupted (Ctrl-C, SIGTERM)
	Aborted   EndReason = "aborted"   // every request failed with one client-side error; the sweep stopped
	// A level that report recovered from the level file: the run was
	// killed during it (crashed), or its append to requests.jsonl failed
	// (failed). Its figures are over the records that reached the disk.
	Crashed EndReason = "crashed"
	Failed  EndReason = "failed"
)

// Level is the raw outcome of one concurrency level: plain data, produced by
// the loop and consumed by report. It holds no figures; report.Summarize
// turns it into them.
type Level struct {
	// Mode is the registered mode that ran the level (LevelKey.Mode);
	// empty in a level read back from disk: Key recovers it.
	Mode        string
	Concurrency int
	Rate        float64 // offered req/s of an open-loop level; 0 closed loop
	Repeat      int
	EndReason   EndReason
	// Start and End bound the level (first request start, last request end),
	// as offsets from the run epoch.
	Start time.Duration
	End   time.Duration
	// Records holds every request of the level, warm-up included (flagged),
	// sorted by Start, when the sweep kept them (Config.Sink nil) or
	// whoever made the level put them there. A level whose records went
	// to a sink as they finished has none: Source reads them back.
	Records []client.Record
	// Source, used when Records is nil, yields the level's records anew on
	// each call, in one order, one at a time (a file read line by line):
	// the sweep sets it to its Config.Sink's LevelRecords.
	Source iter.Seq[*client.Record]
	// Health describes the load generator itself during the level.
	Health Health
	// Server is the server's own account of the level, from its metrics
	// endpoint; nil when it was not sampled (see Config.Server).
	Server *promscrape.LevelMetrics
}

// All iterates over the level's records: Records, else Source (nothing
// when neither is set). The record yielded is only valid until the next.
func (l *Level) All() iter.Seq[*client.Record] {
	if l.Records != nil || l.Source == nil {
		return func(yield func(*client.Record) bool) {
			for i := range l.Records {
				if !yield(&l.Records[i]) {
					return
				}
			}
		}
	}
	return l.Source
}

// Health is what the client observed about itself during a level, used to
// flag levels whose figures were limited by the load generator rather than
// the server.
type Health struct {
	CPUSeconds   float64       `json:"cpu_seconds"`       // user+system CPU of this process during the level
	WallSeconds  float64       `json:"wall_seconds"`      // level wall time
	GOMAXPROCS   int           `json:"gomaxprocs"`        // parallelism available to the client
	IssueLagMax  time.Duration `json:"issue_lag_max_ns"`  // worst delay between a request ending and the worker's next start
	TimerLateMax time.Duration `json:"timer_late_max_ns"` // worst lateness of a 50 ms ticker during the level (scheduler latency proxy)
	TimerLateP99 time.Duration `json:"timer_late_p99_ns"`
}
