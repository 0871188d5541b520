package app

import (
	"context"
	"io"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// The trace replay (sweep.ReplayMode): --trace at --replay-speed speeds,
// a list or auto (search.Speeds), in replay.go. Its speeds go through the
// rate mode's checks and settings (--max-concurrency, the open-loop
// config in summary.json): replay's check hands them over as --rates,
// which is why it ranks before the rate mode. It has no shard split: every
// shard would send the whole trace.
func init() {
	registerMode(&legacyMode{
		name: sweep.ReplayMode, rank: 10, helpOrder: 3,
		flags:    replayFlags,
		parse:    (*options).replayConflicts,
		check:    (*options).replay,
		chosen:   func(o *options) bool { return o.Replay.on() },
		text:     func(o *options) string { return o.Replay.text() },
		searched: func(o *options) bool { return o.Replay.auto },
		levels:   func(o *options) int { return len(o.Replay.speeds) },
		conns:    rateMode.conns,
		record:   rateMode.record,
		summary:  func(o *options, sum *report.Summary) { sum.Trace = &o.Replay.sum },
		estimate: func(o *options) mode.Estimate { return replayLevels{&o.Replay} },
		start: func(ctx context.Context, s modeStart, cfg *sweep.Config) modeRun {
			r := &s.o.Replay
			s.o.Open.apply(cfg)
			r.prepare(ctx, s.cl, s.stderr)
			run := modeRun{
				note:    func(_ sweep.Level, s report.LevelStats) string { return r.lengthNote(s) },
				preface: func(w io.Writer) error { return writeTraceSummary(w, r.File, r.sum) },
				closing: r.speedsSentence,
			}
			if speeds := r.apply(cfg, s.o.API, s.stats, s.o.SLO); speeds != nil {
				run.search = speeds
			}
			return run
		},
	})
}
