package rundir

import (
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// shardOf is a hand-made shard i of n whose one level ran the given
// workers, each with one request [start, end] (ms on the shard's clock),
// with its epoch epochMS after a common origin.
func shardOf(i, n int, epochMS int64, spans ...[2]int) Shard {
	ms := func(v int) time.Duration { return time.Duration(v) * time.Millisecond }
	var recs []client.Record
	for w, sp := range spans {
		recs = append(recs, client.Record{Concurrency: len(spans), Worker: w, Start: ms(sp[0]), FirstToken: ms(sp[0] + 1),
			LastToken: ms(sp[1] - 1), End: ms(sp[1]), ChunkAt: []time.Duration{ms(1), ms(sp[1] - sp[0] - 1)}, ErrorClass: client.OK})
	}
	return Shard{
		Info: ShardInfo{Index: i, Count: n, StartAt: "2030-01-01T00:00:00Z", LevelDuration: "1s", Grace: "1s", Levels: []int{4},
			Workers: []int{len(spans)}, EpochUnixNS: 1893456000e9 + epochMS*1e6, Clock: ClockSync{Known: true, Synced: true, EstErrorUS: 100}},
		Run: SavedRun{Path: "shard" + string(rune('0'+i)), Summary: report.Summary{EndReason: "completed", Config: &report.RunConfig{Model: "m"}},
			Levels: []sweep.Level{{Concurrency: len(spans), EndReason: sweep.Deadline, Records: recs}}},
	}
}

func TestPoolShardsPutsRecordsOnOneTimeline(t *testing.T) {
	// Shard 1's epoch is 30 ms after shard 0's: its request [0, 100] on its
	// own clock is [30, 130] on the merged timeline.
	a := shardOf(0, 2, 0, [2]int{10, 200}, [2]int{20, 210})
	b := shardOf(1, 2, 30, [2]int{0, 100}, [2]int{5, 150})
	if err := CheckShards([]Shard{b, a}, false); err != nil {
		t.Fatal(err)
	}
	levels, _ := PoolShards([]Shard{b, a})
	l := levels[0]
	if l.Concurrency != 4 || len(l.Records) != 4 {
		t.Fatalf("merged C=%d with %d records, want 4 and 4", l.Concurrency, len(l.Records))
	}
	wantStart := map[int]time.Duration{0: 10, 1: 20, 2: 30, 3: 35} // worker → start, ms
	for _, r := range l.Records {
		if r.Concurrency != 4 || r.Start != wantStart[r.Worker]*time.Millisecond {
			t.Errorf("worker %d: C=%d start %v, want C=4 start %vms", r.Worker, r.Concurrency, r.Start, int64(wantStart[r.Worker]))
		}
		if r.End-r.Start != r.ChunkAt[1]+time.Millisecond {
			t.Errorf("worker %d: a shift changed the request's own durations", r.Worker)
		}
	}
	// The union's window: the latest first start (35 ms) to the earliest
	// last end (130 ms: shard 1's worker 0, at 100 + 30).
	s := report.Summarize(l, report.Settings{})
	if s.WindowFallback || s.WindowStart != 35*time.Millisecond || s.WindowEnd != 130*time.Millisecond {
		t.Errorf("window [%v, %v] fallback %v, want [35ms, 130ms]", s.WindowStart, s.WindowEnd, s.WindowFallback)
	}
}

// openShard makes s an open-loop shard at rate 8 with no cap: request m
// (its m-th arrival) scheduled 2 ms before it started.
func openShard(s Shard) Shard {
	s.Info.Levels, s.Info.Rates, s.Info.Workers = nil, []float64{8}, []int{0}
	l := &s.Run.Levels[0]
	l.Concurrency, l.Rate = 0, 8
	for m := range l.Records {
		r := &l.Records[m]
		r.Concurrency, r.Rate, r.Seq, r.Sched = 0, 8, m, r.Start-2*time.Millisecond
	}
	return s
}

func TestPoolShardsOpenLoop(t *testing.T) {
	// Shard 1's epoch is 30 ms after shard 0's. Shard i's m-th arrival is
	// the plan's 2m + i.
	a := openShard(shardOf(0, 2, 0, [2]int{10, 200}, [2]int{20, 210}))
	b := openShard(shardOf(1, 2, 30, [2]int{0, 100}, [2]int{5, 150}))
	if err := CheckShards([]Shard{b, a}, false); err != nil {
		t.Fatal(err)
	}
	levels, _ := PoolShards([]Shard{b, a})
	l := levels[0]
	if l.Rate != 8 || l.Concurrency != 0 || len(l.Records) != 4 {
		t.Fatalf("merged rate %v, cap %d, %d records: want rate 8, no cap, 4 records", l.Rate, l.Concurrency, len(l.Records))
	}
	wantStart := []time.Duration{10, 30, 20, 35} // arrival → start on the merged timeline, ms
	for _, r := range l.Records {
		want := wantStart[r.Worker] * time.Millisecond
		if r.Seq != r.Worker || r.Start != want || r.Sched != want-2*time.Millisecond || r.Rate != 8 {
			t.Errorf("arrival %d (ticket %d): sched %v start %v rate %v, want ticket %d, sched %v, start %v, rate 8",
				r.Worker, r.Seq, r.Sched, r.Start, r.Rate, r.Worker, want-2*time.Millisecond, want)
		}
	}
	// Offered: 3 gaps over the scheduled instants 8 ms to 33 ms.
	if s := report.Summarize(l, report.Settings{}); s.OfferedRPS != 3/0.025 || s.DispatchDelayP99 != 2*time.Millisecond {
		t.Errorf("offered %v req/s, dispatch delay p99 %v: want %v and 2ms", s.OfferedRPS, s.DispatchDelayP99, 3/0.025)
	}
	// A cap splits like C: the shards' parts add up to it.
	a.Info.Workers, a.Run.Levels[0].Concurrency = []int{3}, 3
	b.Info.Workers, b.Run.Levels[0].Concurrency = []int{2}, 2
	if levels, _ := PoolShards([]Shard{a, b}); levels[0].Concurrency != 5 {
		t.Errorf("caps 3 and 2 merged to %d, want 5", levels[0].Concurrency)
	}
}

func TestCheckShardsRefuses(t *testing.T) {
	ok := func() []Shard {
		return []Shard{shardOf(0, 3, 0, [2]int{0, 10}, [2]int{0, 10}), shardOf(1, 3, 0, [2]int{0, 10}), shardOf(2, 3, 0, [2]int{0, 10})}
	}
	for _, c := range []struct {
		name string
		mut  func([]Shard) []Shard
		want string
	}{
		{"missing", func(s []Shard) []Shard { return s[:2] }, "shard 2 of 3 missing"},
		{"twice", func(s []Shard) []Shard { return append(s, s[1]) }, "given twice"},
		{"other N", func(s []Shard) []Shard { s[1].Info.Count = 4; return s }, "not the same run"},
		{"other start", func(s []Shard) []Shard { s[2].Info.StartAt = "2031-01-01T00:00:00Z"; return s }, "different schedules"},
		{"other config", func(s []Shard) []Shard { s[2].Run.Summary.Config = &report.RunConfig{Model: "x"}; return s }, "different configurations"},
		{"short run", func(s []Shard) []Shard { s[0].Info.Workers = []int{2, 2}; return s }, "ran 1 of its 2 levels"},
		{"skew", func(s []Shard) []Shard { s[1].Info.Clock.EstErrorUS = 6000; return s }, "above the 5ms bound"},
		{"unsynced", func(s []Shard) []Shard { s[1].Info.Clock.Synced = false; return s }, "unsynchronised"},
		// Crafted shard.json (issue 25, items 7, 8 and 13).
		{"index past N", func(s []Shard) []Shard { s[2].Info.Index = 5; return s }, "a shard's index is 0 to 2"},
		{"negative index", func(s []Shard) []Shard { s[2].Info.Index = -1; return s }, "a shard's index is 0 to 2"},
		{"zero shards", func(s []Shard) []Shard {
			for i := range s {
				s[i].Info.Count = 0
			}
			return s
		}, "want 1 to 10000"},
		{"huge N", func(s []Shard) []Shard {
			for i := range s {
				s[i].Info.Count = 200000000
			}
			return s
		}, "want 1 to 10000"},
		{"overflowing clock error", func(s []Shard) []Shard { s[1].Info.Clock.EstErrorUS = 9.3e15; return s }, "above the 5ms bound"},
		{"negative clock error", func(s []Shard) []Shard { s[1].Info.Clock.EstErrorUS = -1; return s }, "above the 5ms bound"},
		{"clock stepped", func(s []Shard) []Shard { s[1].Info.WallMinusMonoNS = 5e9; return s }, "wall clock moved 5s"},
		{"clock stepped back", func(s []Shard) []Shard { s[1].Info.WallMinusMonoNS = -1 << 63; return s }, "wall clock moved"},
		{"epoch 10 s early", func(s []Shard) []Shard { s[1].Info.EpochUnixNS -= 10e9; return s }, "outside the level's"},
		{"epoch 10 s late", func(s []Shard) []Shard { s[1].Info.EpochUnixNS += 10e9; return s }, "epoch_unix_ns is wrong"},
		{"epoch at the int64 edge", func(s []Shard) []Shard { s[1].Info.EpochUnixNS = 1<<63 - 1; return s }, "epoch_unix_ns is wrong"},
		{"negative epoch", func(s []Shard) []Shard { s[1].Info.EpochUnixNS = -1 << 63; return s }, "epoch_unix_ns is wrong"},
	} {
		err := CheckShards(c.mut(ok()), false)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
	skewed := ok()
	skewed[1].Info.Clock.Synced = false
	if err := CheckShards(skewed, true); err != nil {
		t.Errorf("--allow-skew: %v", err)
	}
	if err := CheckShards(ok(), false); err != nil {
		t.Errorf("a whole run: %v", err)
	}
}
