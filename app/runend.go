package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"

	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/report/htmlreport"
)

// runEnd is what a run leaves when it ends, written here for the sweep,
// merge and report commands alike, in this order: the charts and
// report.html (when the run has levels), summary.json, then on stdout the
// console tables, the capacity sentence and the lines the run adds.
// summary.json comes after report.html so that, where the outputs settle
// the run's outcome, its end_reason agrees with the exit status.
type runEnd struct {
	out    string              // the directory of the charts and report.html
	charts string              // --charts: the chart files
	slo    *report.SLO         // the objective report.html shows; nil: none
	sum    *report.Summary     // summary.json; its Recommendation is the capacity sentence
	stats  []report.LevelStats // the levels, in run order
	// writeSummary writes summary.json.
	writeSummary func(report.Summary) error
	// scrub, when set, says that the outputs settle the run's outcome (a
	// sweep's, a merge's): a failed write then makes the run end failed,
	// and summary.json, if it can still be written, says why, scrubbed.
	// Nil for a re-render, which keeps the outcome the run recorded.
	scrub   func(string) string
	preface func(io.Writer) error // printed before the tables (a mode's); nil: none
	closing []string              // printed after the capacity sentence
	stderr  io.Writer             // the warnings of writes that failed after the outcome was decided
}

// recommend gives sum the capacity recommendation of stats under slo: a
// sweep's and a merge's (a re-render keeps the one recorded).
func recommend(sum *report.Summary, stats []report.LevelStats, slo report.SLO) {
	if len(stats) > 0 {
		sum.Recommendation = report.NewRecommendationJSON(report.Recommend(stats, slo), stats)
		sum.Tiers = report.NewTiersJSON(report.JudgeTiers(stats, sum.Config.Tiers()), stats)
	}
}

// write writes the outputs. runErr is the run's outcome so far: the first
// error, it or a write's, is the one returned, and a failed write that
// does not decide it is a warning on stderr. A reader gone from stdout
// (| head) changes nothing: the run's files are whole.
func (e *runEnd) write(ctx context.Context, runErr error, stdout io.Writer) error {
	if len(e.stats) > 0 {
		opts := htmlreport.Options{SLO: e.slo, Answer: recommendation(*e.sum), Charts: e.charts}
		if err := writeReport(e.out, *e.sum, byConcurrency(e.stats), opts); err != nil {
			runErr = e.failed(ctx, runErr, fmt.Errorf("writing charts and report.html: %w", err))
		}
	}
	if e.scrub != nil && e.sum.EndReason == "failed" && runErr != nil {
		e.sum.EndError = e.scrub(oneLine(runErr.Error()))
	}
	if err := e.writeSummary(*e.sum); err != nil {
		runErr = e.failed(ctx, runErr, err)
	}
	if e.preface != nil {
		if err := e.preface(stdout); err != nil && runErr == nil {
			runErr = err
		}
	}
	if len(e.stats) == 0 {
		return runErr
	}
	if err := report.WriteConsole(stdout, byConcurrency(e.stats)); err != nil && runErr == nil && !errors.Is(err, syscall.EPIPE) {
		runErr = err
	}
	if s := recommendation(*e.sum); s != "" {
		fmt.Fprintf(stdout, "\n%s\n", s)
	}
	if err := report.WriteTiers(stdout, e.sum.Tiers); err != nil && runErr == nil && !errors.Is(err, syscall.EPIPE) {
		runErr = err
	}
	if e.sum.TierSearch != nil {
		fmt.Fprintln(stdout, e.sum.TierSearch.Sentence())
	}
	for _, l := range e.closing {
		fmt.Fprintln(stdout, l)
	}
	return runErr
}

// failed records that an output could not be written: the first error
// decides the outcome (an interrupt stays an interrupt), a run whose
// outputs settle it and that had not failed yet now ends failed, and an
// error that does not decide the outcome is still reported, as a warning.
func (e *runEnd) failed(ctx context.Context, runErr, err error) error {
	if runErr != nil {
		fmt.Fprintf(e.stderr, "toksweep: warning: %s\n", oneLine(err.Error()))
		return runErr
	}
	if e.scrub != nil {
		e.sum.EndReason = endReason(ctx, err)
	}
	return err
}

// writeReport writes the charts and report.html; tests replace it to make
// the write fail.
var writeReport = htmlreport.WriteAll

// recommendation is the capacity sentence the run recorded, "" when none.
func recommendation(sum report.Summary) string {
	if sum.Recommendation == nil {
		return ""
	}
	return sum.Recommendation.Sentence
}
