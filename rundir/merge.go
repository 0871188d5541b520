package rundir

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// MaxClockError is the clock error (adjtimex's estimated error) above which
// a shard's records are not merged without --allow-skew: an error of 5 ms
// moves a record's instants, and the steady window's edges, by at most that
// much against another shard's, well under one inter-token gap of a served
// model. Per-request figures (TTFT, rates) are differences on one shard's
// clock and are exact whatever the skew.
const MaxClockError = 5 * time.Millisecond

// Shard is one shard's run directory, read back.
type Shard struct {
	Info ShardInfo
	Run  SavedRun
}

// CheckShards says why shards are not one whole sharded run, nil when they
// are: every index of the same N exactly once, the same plan and
// configuration, every level run with the shard's planned part, and (unless
// allowSkew) every clock synchronised within MaxClockError.
func CheckShards(shards []Shard, allowSkew bool) error {
	if len(shards) == 0 {
		return fmt.Errorf("no shards")
	}
	n := shards[0].Info.Count
	byIndex := make(map[int]string)
	for _, s := range shards {
		if s.Info.Count != n {
			return fmt.Errorf("%s is shard %d/%d but %s is of %d shards: not the same run", s.Run.Path, s.Info.Index, s.Info.Count, shards[0].Run.Path, n)
		}
		if prev, dup := byIndex[s.Info.Index]; dup {
			return fmt.Errorf("shard %d/%d given twice (%s and %s)", s.Info.Index, n, prev, s.Run.Path)
		}
		byIndex[s.Info.Index] = s.Run.Path
	}
	var missing []string
	for i := range n {
		if _, ok := byIndex[i]; !ok {
			missing = append(missing, fmt.Sprint(i))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("shard %s of %d missing (got %d of %d): an exact merge needs every shard of the run", strings.Join(missing, ", "), n, len(shards), n)
	}
	for _, s := range shards[1:] {
		if err := samePlan(shards[0], s); err != nil {
			return err
		}
	}
	for _, s := range shards {
		if err := ranPlan(s); err != nil {
			return err
		}
		if e := s.Info.Clock.Error(); e > MaxClockError && !allowSkew {
			return fmt.Errorf("shard %d's clock error is %s, above the %v bound: synchronise the hosts' clocks (NTP, chrony) or pass --allow-skew",
				s.Info.Index, clockText(s.Info.Clock), MaxClockError)
		}
	}
	return nil
}

func clockText(c ClockSync) string {
	switch {
	case !c.Known:
		return "unknown (not measured on this platform)"
	case !c.Synced:
		return "unknown (the kernel reports the clock unsynchronised)"
	}
	return (time.Duration(c.EstErrorUS) * time.Microsecond).String()
}

// samePlan says how b's plan or configuration differs from a's.
func samePlan(a, b Shard) error {
	ai, bi := a.Info, b.Info
	switch {
	case ai.StartAt != bi.StartAt || ai.LevelDuration != bi.LevelDuration || ai.Grace != bi.Grace:
		return fmt.Errorf("%s and %s have different schedules (start-at, level-duration, grace): not the same run", a.Run.Path, b.Run.Path)
	case !slices.Equal(ai.Levels, bi.Levels) || !slices.Equal(ai.Rates, bi.Rates):
		return fmt.Errorf("%s and %s have different levels: not the same run", a.Run.Path, b.Run.Path)
	}
	ac, _ := json.Marshal(a.Run.Summary.Config)
	bc, _ := json.Marshal(b.Run.Summary.Config)
	if !bytes.Equal(ac, bc) || a.Run.Summary.Model != b.Run.Summary.Model {
		return fmt.Errorf("%s and %s have different configurations (summary.json config): not the same run", a.Run.Path, b.Run.Path)
	}
	return nil
}

// ranPlan says how a shard's levels differ from its plan.
func ranPlan(s Shard) error {
	if len(s.Run.Levels) != len(s.Info.Workers) {
		return fmt.Errorf("shard %d (%s) ran %d of its %d levels: merge only finished runs", s.Info.Index, s.Run.Path, len(s.Run.Levels), len(s.Info.Workers))
	}
	for k, l := range s.Run.Levels {
		if l.Concurrency != s.Info.Workers[k] {
			return fmt.Errorf("shard %d (%s): level %d ran %d workers, its plan says %d", s.Info.Index, s.Run.Path, k, l.Concurrency, s.Info.Workers[k])
		}
	}
	return nil
}

// PoolShards puts the records of checked shards on one timeline (the
// earliest shard's epoch) and returns the merged run's levels, with every
// worker numbered apart (shard i's after those of shards 0…i−1) and the
// level's whole concurrency, so that Summarize computes every figure from
// the pooled records as for one process: exact percentiles, and a steady
// window in which every worker of every shard was in flight. An open-loop
// level keeps its offered rate, its whole cap (the shards' parts add up to
// it) and every arrival's scheduled instant; its lanes become the arrivals'
// indices in the whole plan (shard i's m-th is arrival m×N + i). The
// summary is shard 0's, with the run's first start, last finish and worst
// end reason; its Levels are left to the caller.
func PoolShards(shards []Shard) ([]sweep.Level, report.Summary) {
	shards = slices.SortedFunc(slices.Values(shards), func(a, b Shard) int { return cmp.Compare(a.Info.Index, b.Info.Index) })
	origin := shards[0].Info.EpochUnixNS
	for _, s := range shards {
		origin = min(origin, s.Info.EpochUnixNS)
	}
	levels := make([]sweep.Level, len(shards[0].Run.Levels))
	for k := range levels {
		var recs []client.Record
		c, end, health := 0, sweep.Completed, sweep.Health{}
		for _, s := range shards {
			l := s.Run.Levels[k]
			shift := time.Duration(s.Info.EpochUnixNS - origin)
			for _, r := range l.Records {
				if l.Key().IsOpen() { // lane and ticket are the shard's arrival index
					r.Worker = r.Worker*s.Info.Count + s.Info.Index
					r.Seq = r.Seq*s.Info.Count + s.Info.Index
				} else {
					r.Worker += c
				}
				shiftRecord(&r, shift)
				recs = append(recs, r)
			}
			c += l.Concurrency
			end = worseEnd(end, l.EndReason)
			health = poolHealth(health, l.Health)
		}
		for i := range recs {
			recs[i].Concurrency = c
		}
		slices.SortStableFunc(recs, func(a, b client.Record) int { return cmp.Compare(a.Start, b.Start) })
		first := shards[0].Run.Levels[k]
		levels[k] = newLevel(levelKey{concurrency: c, rate: first.Rate, repeat: first.Repeat}, end, health, recs)
		levels[k].Server = shards[0].Run.Levels[k].Server
		levels[k].ReadingSpeed = shards[0].Run.Levels[k].ReadingSpeed // the same config in every shard
	}
	sum := shards[0].Run.Summary
	sum.Levels, sum.Recommendation = nil, nil
	for _, s := range shards[1:] {
		if t := s.Run.Summary.Started; t.Before(sum.Started) {
			sum.Started = t
		}
		if t := s.Run.Summary.Finished; t.After(sum.Finished) {
			sum.Finished = t
		}
		if s.Run.Summary.EndReason != string(sweep.Completed) {
			sum.EndReason = s.Run.Summary.EndReason
		}
	}
	return levels, sum
}

// shiftRecord moves a record's instants by d; the zero instants that mean
// "did not happen" stay zero.
func shiftRecord(r *client.Record, d time.Duration) {
	r.Start += d
	for _, t := range []*time.Duration{&r.Sched, &r.Header, &r.FirstToken, &r.FirstContent, &r.LastToken, &r.End} {
		if *t != 0 {
			*t += d
		}
	}
}

// worseEnd is the end reason of a level that ended a on one shard and b on
// another: any interruption or abort wins, then a deadline.
func worseEnd(a, b sweep.EndReason) sweep.EndReason {
	rank := func(e sweep.EndReason) int {
		return map[sweep.EndReason]int{sweep.Completed: 0, sweep.Deadline: 1, sweep.Aborted: 2, sweep.Canceled: 3}[e]
	}
	if rank(b) > rank(a) || b == "" {
		return b
	}
	return a
}

// poolHealth is the health of the shards together: CPU and parallelism
// add up, the wall time and the worst lags are the largest.
func poolHealth(a, b sweep.Health) sweep.Health {
	return sweep.Health{
		CPUSeconds: a.CPUSeconds + b.CPUSeconds, WallSeconds: max(a.WallSeconds, b.WallSeconds),
		GOMAXPROCS: a.GOMAXPROCS + b.GOMAXPROCS, IssueLagMax: max(a.IssueLagMax, b.IssueLagMax),
		TimerLateMax: max(a.TimerLateMax, b.TimerLateMax), TimerLateP99: max(a.TimerLateP99, b.TimerLateP99),
	}
}
