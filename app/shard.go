package app

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/internal/english"
	"github.com/toksweep/toksweep/rundir"
	"github.com/toksweep/toksweep/sweep"
)

// Sharded runs (issue 15 §4): N processes, each given --shard i/N, run the
// same plan at the same wall-clock instants, each with its part of every
// level's concurrency; 'toksweep merge' pools their records into one run.

// Environment variables read by --shard-from-env. JobIndexEnv is set by a
// Kubernetes Indexed Job in every pod.
const (
	JobIndexEnv  = "JOB_COMPLETION_INDEX"
	ShardsEnv    = "TOKSWEEP_SHARDS"
	defaultGrace = 10 * time.Second
	// shardLateLimit is how late a shard may start a level before it gives
	// up: past it, the shards no longer load the server together.
	shardLateLimit = time.Second
	// defaultMaxStartWait is how far ahead --start-at may be unless
	// --max-start-wait says otherwise: a placeholder start (2030, 9999) must
	// not park a pod for years.
	defaultMaxStartWait = time.Hour
)

// shardOptions are the sharding flags, bound by shardFlags and checked by
// options.shard. Count is zero when the run is not sharded.
type shardOptions struct {
	Spec          string // --shard i/N (or N with --shard-from-env)
	FromEnv       bool
	StartAt       string
	LevelDuration time.Duration
	Grace         time.Duration
	MaxStartWait  time.Duration

	Index, Count int
	Start        time.Time
}

func shardFlags(o *options) []cli.Flag {
	s := &o.Shard
	return []cli.Flag{
		&cli.StringFlag{Name: "shard", Destination: &s.Spec, Usage: "run shard i of N (i/N, 0-based) of a sharded sweep; merge the shards with 'toksweep merge'"},
		&cli.BoolFlag{Name: "shard-from-env", Destination: &s.FromEnv, Usage: "take the shard index from $" + JobIndexEnv + " (Kubernetes Indexed Job) and N from --shard N or $" + ShardsEnv},
		&cli.StringFlag{Name: "start-at", Destination: &s.StartAt, Usage: "sharded: wall-clock start of level 0 (RFC 3339, e.g. 2026-12-01T17:00:00Z), the same on every shard"},
		&cli.DurationFlag{Name: "level-duration", Destination: &s.LevelDuration, Usage: "sharded: measured phase of each level (as --duration); level k starts at start-at + k × (level-duration + grace)"},
		&cli.DurationFlag{Name: "max-start-wait", Value: defaultMaxStartWait, Destination: &s.MaxStartWait, Usage: "sharded: refuse a --start-at further ahead than this"},
		&cli.DurationFlag{Name: "grace", Value: defaultGrace, Destination: &s.Grace, Usage: "sharded: time between one level's end and the next level's start, for warm-up and drain (the drain is capped at it)"},
	}
}

// shard checks the sharding flags and, when sharded, sets the level bound.
func (o *options) shard() error {
	s := &o.Shard
	if s.Spec == "" && !s.FromEnv {
		if s.StartAt != "" || s.LevelDuration != 0 {
			return usagef("--start-at and --level-duration need --shard i/N or --shard-from-env")
		}
		return nil
	}
	if err := s.identity(); err != nil {
		return err
	}
	switch {
	case s.StartAt == "":
		return usagef("--shard needs --start-at, e.g. --start-at %s", time.Now().UTC().Add(5*time.Minute).Truncate(time.Minute).Format(time.RFC3339))
	case s.LevelDuration <= 0:
		return usagef("--shard needs --level-duration, a positive duration such as 60s")
	case s.Grace < 0:
		return usagef("invalid --grace %v: want a duration ≥ 0", s.Grace)
	case o.Flags.DurationSet:
		return usagef("--shard takes --level-duration, not --duration")
	}
	t, err := time.Parse(time.RFC3339Nano, s.StartAt)
	if err != nil {
		return usagef("invalid --start-at %q: want an RFC 3339 instant such as 2026-12-01T17:00:00Z", s.StartAt)
	}
	if wait := time.Until(t); wait > s.MaxStartWait {
		return usagef("--start-at %s is %v ahead, more than --max-start-wait %v: give a nearer start, or raise --max-start-wait", s.StartAt, wait.Round(time.Second), s.MaxStartWait)
	}
	s.Start = t
	o.Duration, o.Flags.DurationSet, o.LevelDuration = s.LevelDuration, true, s.LevelDuration
	if s.Grace > 0 {
		o.DrainTimeout = min(o.DrainTimeout, s.Grace)
	}
	return nil
}

// identity sets Index and Count from --shard and the environment.
func (s *shardOptions) identity() error {
	if s.FromEnv {
		idx, ok := os.LookupEnv(JobIndexEnv)
		if !ok {
			return usagef("--shard-from-env: $%s is not set (it is set in the pods of a Kubernetes Indexed Job)", JobIndexEnv)
		}
		n := s.Spec
		if n == "" {
			n = os.Getenv(ShardsEnv)
		}
		if n == "" || strings.Contains(n, "/") {
			return usagef("--shard-from-env needs N as --shard N or $%s", ShardsEnv)
		}
		s.Spec = idx + "/" + n
	}
	is, ns, ok := strings.Cut(s.Spec, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || n > rundir.MaxShards || i < 0 || i >= n {
		return usagef("invalid --shard %q: want i/N with 0 ≤ i < N ≤ %d, e.g. 0/4", s.Spec, rundir.MaxShards)
	}
	s.Index, s.Count = i, n
	return nil
}

// shardMode is the chosen mode's shard checks (sharder.ShardCheck), once
// every mode's own checks have run; a mode with no split is refused.
func (o *options) shardMode() error {
	if o.Shard.Count == 0 {
		return nil
	}
	m := o.mode()
	sh, ok := m.(sharder)
	if !ok {
		return usagef("--shard: the %s mode cannot be split across shards; run it as one process", m.Name())
	}
	return sh.ShardCheck(&o.Line, o.Shard.part())
}

// part is this shard's part of the run.
func (s *shardOptions) part() sweep.Part { return sweep.Part{Index: s.Index, Of: s.Count} }

// levelStart is the wall-clock instant at which level k starts.
func (s *shardOptions) levelStart(k int) time.Time {
	return s.Start.Add(time.Duration(k) * (s.LevelDuration + s.Grace))
}

// waitText says how long the shard waits for level 0 and when its last
// level ends (runs levels in all), for the line printed before the wait.
func (s *shardOptions) waitText(now time.Time, runs int) string {
	end := s.levelStart(runs - 1).Add(s.LevelDuration + s.Grace)
	return fmt.Sprintf("shard %d/%d: waiting %v for --start-at %s; its %s end by %s (each level-duration %v + grace %v)",
		s.Index, s.Count, max(s.Start.Sub(now), 0).Round(time.Second), s.Start.UTC().Format(time.RFC3339),
		english.Plural(runs, "level"), end.UTC().Format(time.RFC3339), s.LevelDuration, s.Grace)
}

// shardRuns is how many level runs a sharded sweep makes: its levels (or
// rates) times --repeat.
func (o *options) shardRuns() int { return o.plannedRuns() }

// notPast fails when level k's start instant has passed by more than the
// lateness allowed.
func (s *shardOptions) notPast(k int, now time.Time) error {
	at := s.levelStart(k)
	if late := now.Sub(at); late > shardLateLimit {
		what := "--start-at is already past"
		if k > 0 {
			what = "the previous level overran its --grace"
		}
		return fmt.Errorf("shard %d/%d: level %d was due at %s and the shard is %v late: %s; every shard must start it together",
			s.Index, s.Count, k, at.UTC().Format(time.RFC3339Nano), late.Round(time.Millisecond), what)
	}
	return nil
}

// beforeLevel is the sweep's BeforeLevel hook for a shard: it waits for
// level k's start instant and returns the shard's part of c (open loop: of
// the --max-concurrency cap, 0 for none; the arrivals are split by split).
func (s *shardOptions) beforeLevel(ctx context.Context, k, c int) (int, error) {
	if err := s.notPast(k, time.Now()); err != nil {
		return 0, err
	}
	t := time.NewTimer(time.Until(s.levelStart(k)))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return 0, context.Cause(ctx)
	case <-t.C:
	}
	return sweep.Part{Index: s.Index, Of: s.Count}.Workers(c, k), nil
}

// shardInfo is shard.json for a run whose records count from epoch.
func (o *options) shardInfo(epoch time.Time) rundir.ShardInfo {
	s := &o.Shard
	info := rundir.ShardInfo{
		Index: s.Index, Count: s.Count, StartAt: s.Start.UTC().Format(time.RFC3339Nano),
		LevelDuration: s.LevelDuration.String(), Grace: s.Grace.String(),
		EpochUnixNS: epoch.UnixNano(), Clock: clockSync(),
	}
	var levels []int
	if sh, ok := o.mode().(sharder); ok {
		levels = sh.ShardLevels(&o.Line, &info)
	}
	k := 0
	for _, c := range levels {
		for range max(o.Repeat, 1) {
			info.Workers = append(info.Workers, sweep.Part{Index: s.Index, Of: s.Count}.Workers(c, k))
			k++
		}
	}
	return info
}

// split makes cfg this shard's part of mode m's run: the mode's part of
// the arrivals (the rate mode sends the arrivals j ≡ i (mod N) of the plan
// every shard draws), and the shard's q-th request sends the prompt a
// single process would give the run's request q×N + i (in the open loop,
// that is arrival q×N + i's own), so that the shards do not all send the
// same first prompts.
func (s *shardOptions) split(cfg *sweep.Config, m commandMode) {
	if sh, ok := m.(sharder); ok {
		sh.ShardSplit(s.part(), cfg)
	}
	if p := cfg.Prompt; p != nil {
		cfg.Prompt = func(seq int) client.Prompt { return p(seq*s.Count + s.Index) }
	}
}

// startShard writes shard.json and returns the sweep's BeforeLevel hook and
// a func that records the clock's drift in shard.json at the end.
func (o *options) startShard(epoch time.Time) (hook func(context.Context, int, int) (int, error), done func() error, err error) {
	info := o.shardInfo(epoch)
	if err := rundir.WriteShardInfo(o.Out, info); err != nil {
		return nil, nil, err
	}
	done = func() error {
		// time.Since uses the monotonic reading; Now().UnixNano the wall clock.
		info.WallMinusMonoNS = time.Now().UnixNano() - (info.EpochUnixNS + int64(time.Since(epoch)))
		return rundir.WriteShardInfo(o.Out, info)
	}
	return o.Shard.beforeLevel, done, nil
}
