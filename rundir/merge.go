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
	if n < 1 || n > MaxShards {
		return fmt.Errorf("%s says it is one of %d shards: want 1 to %d", shards[0].Run.Path, n, MaxShards)
	}
	byIndex := make(map[int]string)
	for _, s := range shards {
		if s.Info.Count != n {
			return fmt.Errorf("%s is shard %d/%d but %s is of %d shards: not the same run", s.Run.Path, s.Info.Index, s.Info.Count, shards[0].Run.Path, n)
		}
		if s.Info.Index < 0 || s.Info.Index >= n {
			return fmt.Errorf("%s says it is shard %d of %d: a shard's index is 0 to %d", s.Run.Path, s.Info.Index, n, n-1)
		}
		if prev, dup := byIndex[s.Info.Index]; dup {
			return fmt.Errorf("shard %d/%d given twice (%s and %s)", s.Info.Index, n, prev, s.Run.Path)
		}
		byIndex[s.Info.Index] = s.Run.Path
	}
	if len(byIndex) < n {
		return fmt.Errorf("shard %s of %d missing (got %d of %d): an exact merge needs every shard of the run", missingText(byIndex, n), n, len(byIndex), n)
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
		if err := inSchedule(s); err != nil {
			return err
		}
		if allowSkew {
			continue
		}
		if e := s.Info.Clock.Error(); e > MaxClockError {
			return fmt.Errorf("shard %d's clock error is %s, above the %v bound: synchronise the hosts' clocks (NTP, chrony) or pass --allow-skew",
				s.Info.Index, clockText(s.Info.Clock), MaxClockError)
		}
		if st := s.Info.WallMinusMonoNS; st > int64(MaxClockError) || st < -int64(MaxClockError) {
			return fmt.Errorf("shard %d's wall clock moved %v against its monotonic clock during the run, above the %v bound: its records cannot be placed against the others' (pass --allow-skew to merge anyway)",
				s.Info.Index, time.Duration(st), MaxClockError)
		}
	}
	return nil
}

// MaxShards bounds a run's shard count, as --shard does.
const MaxShards = 10000

// missingText names up to five of the missing shard indices: it walks no
// further than the shards given plus five, whatever N a shard.json claims.
func missingText(byIndex map[int]string, n int) string {
	var missing []string
	for i := 0; i < n && len(missing) < 5; i++ {
		if _, ok := byIndex[i]; !ok {
			missing = append(missing, fmt.Sprint(i))
		}
	}
	if more := n - len(byIndex) - len(missing); more > 0 {
		missing = append(missing, fmt.Sprintf("and %d more", more))
	}
	return strings.Join(missing, ", ")
}

// inSchedule checks that a shard's records sit where its schedule puts
// them: every record of level k starts, in wall time (epoch + its
// instant), between level k's start and its end plus grace (with
// scheduleSlack either side). A crafted or wrong epoch_unix_ns would shift
// a shard's records against the others' by any amount.
func inSchedule(s Shard) error {
	start, err1 := time.Parse(time.RFC3339Nano, s.Info.StartAt)
	d, err2 := time.ParseDuration(s.Info.LevelDuration)
	g, err3 := time.ParseDuration(s.Info.Grace)
	if err1 != nil || err2 != nil || err3 != nil || d <= 0 || g < 0 || d+g > 1000*time.Hour {
		return fmt.Errorf("shard %d (%s): shard.json's start_at, level_duration or grace is not a schedule", s.Info.Index, s.Run.Path)
	}
	epoch := time.Unix(0, s.Info.EpochUnixNS)
	if gap := start.Sub(epoch); gap < -scheduleSlack || gap > maxEpochLead {
		return fmt.Errorf("shard %d (%s): its record epoch is %v before start_at, outside 0 to %v: epoch_unix_ns is wrong", s.Info.Index, s.Run.Path, gap, maxEpochLead)
	}
	for k, l := range s.Run.Levels {
		from := start.Add(time.Duration(k) * (d + g))
		to := from.Add(d + g)
		for i := range l.Records {
			at := epoch.Add(l.Records[i].Start)
			if at.Before(from.Add(-scheduleSlack)) || at.After(to.Add(scheduleSlack)) {
				return fmt.Errorf("shard %d (%s): a record of level %d starts at %s, outside the level's %s to %s: the shard's epoch or clock is off",
					s.Info.Index, s.Run.Path, k, at.UTC().Format(time.RFC3339Nano), from.UTC().Format(time.RFC3339), to.UTC().Format(time.RFC3339))
			}
		}
	}
	return nil
}

const (
	// scheduleSlack is how far outside its level a record may start: the
	// shard's lateness limit (1 s) and clock error, with room.
	scheduleSlack = 2 * time.Second
	// maxEpochLead is how long before start_at a shard's epoch may be: its
	// process starts, then waits for start_at (at most --max-start-wait).
	maxEpochLead = 30 * 24 * time.Hour
)

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
