package app

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/internal/progress"
	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/rundir"
)

func mergeCommand(stdout, stderr io.Writer) *cli.Command {
	var allowSkew bool // --allow-skew
	var charts string  // --charts
	return &cli.Command{
		Name:  "merge",
		Usage: "merge the shards of a sharded sweep (sweep --shard i/N) into one run, every figure computed from the pooled records",
		UsageText: "toksweep merge [--allow-skew] [--charts FORMATS] OUT SHARD_DIR...\n\n" +
			"Every shard of the run must be given, with the same plan and configuration. OUT is a new\n" +
			"or empty directory; it gets the files of a single run (levels.csv, requests.jsonl,\n" +
			"summary.json, charts, report.html), so report, compare and plan read it as one.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "allow-skew", Destination: &allowSkew, Usage: fmt.Sprintf("merge even when a shard's clock error is unknown or above %v", rundir.MaxClockError)},
			chartsFlag(&charts),
		},
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			if err := flagsFirst(args, "merge"); err != nil {
				return err
			}
			if len(args) < 2 {
				return usagef("merge takes an output directory and the shard directories, got %d arguments (see 'toksweep merge --help')", len(args))
			}
			return runMerge(args[0], args[1:], allowSkew, charts, stdout, stderr)
		},
	}
}

// runMerge reads, checks and pools the shards in dirs and writes the merged
// run into out, as a sweep writes its run, with the chart files charts
// names.
func runMerge(out string, dirs []string, allowSkew bool, charts string, stdout, stderr io.Writer) error {
	shards := make([]rundir.Shard, len(dirs))
	for i, d := range dirs {
		info, err := rundir.ReadShardInfo(d)
		if err != nil {
			return err
		}
		run, err := rundir.ReadRunDir(d)
		if err != nil {
			return err
		}
		for _, w := range run.Warnings {
			fmt.Fprintf(stderr, "toksweep: warning: %s: %s\n", d, w)
		}
		shards[i] = rundir.Shard{Info: info, Run: run}
	}
	if err := rundir.CheckShards(shards, allowSkew); err != nil {
		return fmt.Errorf("merge refused: %w", err)
	}
	levels, sum := rundir.PoolShards(shards)
	dir, err := rundir.ReserveRunDir(out, rundir.RunDirOptions{})
	if errors.Is(err, rundir.ErrRunDirNotEmpty) {
		return usagef("%s: choose another output directory", err)
	} else if err != nil {
		return err
	}
	defer dir.Close()
	set := sum.Config.Settings() // the shards' own reader and extra percentiles (CheckShards: one config)
	o := &options{Out: out, ReadingSpeed: set.Reader(), Percentiles: set.Percentiles, Charts: charts}
	o.SLO, _ = sum.Config.Objective()
	dir.Settings = o.settings()
	if err := dir.Begin(); err != nil {
		return err
	}
	run := &sweepRun{o: o, dir: dir, stderr: stderr, progress: progress.New(stderr, mode.Timing{}, nil), sum: sum}
	for _, l := range levels {
		if err := run.level(l); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "toksweep: merged %d shards (%d levels) into %s\n", len(shards), len(levels), out)
	return run.finishMerge(stdout)
}

// finishMerge writes what a merged run leaves (runEnd), as a sweep does,
// keeping the shards' finish time and end reason unless a write fails.
func (r *sweepRun) finishMerge(stdout io.Writer) error {
	return r.end().write(context.Background(), nil, stdout)
}
