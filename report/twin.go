package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toksweep/toksweep/sweep"
)

// TwinJSON is summary.json's "twin": what the model-steered search
// (--twin) ran on the server against the full search the model predicted,
// and the model's error at the level that confirmed its boundary
// (docs/metrics.md, "The steered search").
type TwinJSON struct {
	Search   string   `json:"search"`    // the mode whose search was steered: "closed", "rate", …
	FittedOn []string `json:"fitted_on"` // the levels the last model was fitted on
	Steered  []string `json:"steered"`   // the levels the model chose, in order
	// Calibration are the levels run as calibration levels (a fourth of
	// their requests, before the model was used); their rows in levels
	// are not full measurements. Remeasured are those of them run again
	// at full length (one that failed, or the answer), whose full run the
	// answer reads.
	Calibration []string `json:"calibration,omitempty"`
	Remeasured  []string `json:"remeasured,omitempty"`
	Predictions int      `json:"predictions"` // the fits made
	Pass        string   `json:"predicted_pass,omitempty"`
	Fail        string   `json:"predicted_fail,omitempty"`
	Pinned      bool     `json:"pinned"`              // the 80% corners agreed on the boundary
	Confirmed   string   `json:"confirmed,omitempty"` // the confirming level, which passed on the server
	Fallback    string   `json:"fallback,omitempty"`  // why the mode's own search ran the rest
	Levels      int      `json:"levels"`              // levels run on the server
	LoadSeconds float64  `json:"load_seconds"`        // their load-seconds
	// FullLevels and FullLoadSeconds are the last model's full search, on
	// the twin: what the mode's search would have cost on the server.
	FullLevels      int     `json:"full_levels"`
	FullLoadSeconds float64 `json:"full_load_seconds"`
	// ConfirmError is the grading of the confirming level (null: none).
	ConfirmError *GradeJSON `json:"confirm_error"`
}

// Sentence is the steered search's closing sentence.
func (j *TwinJSON) Sentence() string {
	var b strings.Builder
	fmt.Fprintf(&b, "The %s search, steered by the twin (%d fits), ran %d levels", j.Search, j.Predictions, j.Levels)
	if len(j.Calibration) > 0 {
		fmt.Fprintf(&b, " (%s short, for calibration", strings.Join(j.Calibration, ","))
		if len(j.Remeasured) > 0 {
			fmt.Fprintf(&b, "; %s again at full length", strings.Join(j.Remeasured, ","))
		}
		b.WriteString(")")
	}
	fmt.Fprintf(&b, ", %.1f load-seconds on the server", j.LoadSeconds)
	switch {
	case j.FullLevels == 0:
		b.WriteString("; the twin ran no full search.")
	default:
		fmt.Fprintf(&b, "; the twin's full search ran %d levels, %.1f load-seconds", j.FullLevels, j.FullLoadSeconds)
		if j.FullLoadSeconds > 0 {
			fmt.Fprintf(&b, " (the steered search spent %.0f%% of that)", 100*j.LoadSeconds/j.FullLoadSeconds)
		}
		b.WriteString(".")
	}
	if j.Fallback != "" {
		fmt.Fprintf(&b, " The mode's own search finished it: %s.", j.Fallback)
	}
	if g := j.ConfirmError; g != nil {
		var parts []string
		for _, f := range g.Figures {
			if f.RelError != nil {
				parts = append(parts, fmt.Sprintf("%s %+.1f%%", f.Name, 100**f.RelError))
			}
		}
		fmt.Fprintf(&b, " Confirmed at %s; the model's error there: %s.", g.Level, strings.Join(parts, ", "))
	}
	return b.String()
}

// Kept is stats, the levels of a steered run of config c in run order, as
// the run's answer read them (KeptRuns). A nil j (no steering) keeps
// every level.
func (j *TwinJSON) Kept(stats []LevelStats, c *RunConfig) []LevelStats {
	return KeptRuns(j, stats, c, func(s LevelStats) (sweep.LevelKey, int) { return s.Key(), s.Repeat })
}

// KeptRuns is runs, the levels of a run of config c steered as j says, in
// run order, as the run's answer read them; run gives a level's key and
// repeat. A calibration run of a level measured again at full length
// (Remeasured) is left out once a full run of that level follows it, as
// the live run replaced it. A level's calibration runs are its first
// c.Repeat runs (a rerun is numbered on from them: sweep.Run). It is
// the one rule for every reader of a saved run: its stats (Kept) or its
// raw levels (rundir.SavedRun.Kept). A nil j keeps every level.
func KeptRuns[T any](j *TwinJSON, runs []T, c *RunConfig, run func(T) (sweep.LevelKey, int)) []T {
	if j == nil || len(j.Remeasured) == 0 {
		return runs
	}
	repeat := 1
	if c != nil {
		repeat = max(c.Repeat, 1)
	}
	calib := func(r T) bool {
		k, n := run(r)
		return n < repeat && slices.Contains(j.Remeasured, k.Name())
	}
	full := map[string]bool{} // the remeasured levels whose full run ran
	for _, r := range runs {
		if !calib(r) {
			k, _ := run(r)
			full[k.Name()] = true
		}
	}
	return slices.DeleteFunc(slices.Clone(runs), func(r T) bool {
		k, _ := run(r)
		return calib(r) && full[k.Name()]
	})
}
