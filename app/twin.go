package app

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/mode/steer"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sim"
	"github.com/toksweep/toksweep/sim/fit"
	"github.com/toksweep/toksweep/sweep"
)

// twinResamples is the bootstrap of each steering fit: enough for the
// 10th and 90th percentiles, quick beside a level.
const twinResamples = 100

// twinFlags is --twin, bound into o.Twin.
func twinFlags(o *options) []cli.Flag {
	return []cli.Flag{&cli.BoolFlag{Name: "twin", Destination: &o.Twin,
		Usage: "steer --levels/--rates/--replay-speed auto with a model of the server fitted as the levels end: measure where it predicts the SLO boundary, and confirm it on the server"}}
}

// twinCheck refuses a --twin it cannot steer, in one line each.
func (o *options) twinCheck() error {
	switch {
	case !o.Twin:
		return nil
	case !o.searched():
		return usagef("--twin steers an adaptive search: give --levels auto, --rates auto or --replay-speed auto")
	case len(o.Tier.Tiers) > 0:
		return usagef("--twin steers one SLO's search: give --slo-* without --slo-tier or --slo-tiers")
	case !o.SLO.Set():
		return usagef("--twin predicts where an SLO is met: give an --slo-* bound")
	case o.Flags.SimModel != "":
		return usagef("--twin fits its own model of the server as it goes: drop --sim-model")
	}
	return nil
}

// twinRefuses is why a fitted model may not steer the search yet ("": it
// may): a poor fit (fit.Model.PoorFit, which names the level the step
// model misses; poor, refused for good), a parameter whose interval moves
// its steps too far, or a per-sequence decode cost it could not tell (the
// cost the load adds). A parameter folded into another because the
// workload did not vary it is no reason: the twin runs the same workload.
func twinRefuses(m fit.Model) (why string, poor bool) {
	if p := m.PoorFit(); len(p) > 0 {
		return "the fit is poor (the step model cannot represent the server there): " + p[0], true
	}
	if m.Calibration == nil {
		return "", false
	}
	for _, why := range m.Calibration.IllConditioned {
		if !strings.HasSuffix(why, " is not identified") || strings.HasPrefix(why, "decode_per_seq ") {
			return "ill-conditioned fit (" + why + ")", false
		}
	}
	return "", false
}

// twin is the steered search's predictor (steer.Predictor): it fits the
// server's levels so far and runs the mode's own search on an in-process
// simulator serving the fitted model.
type twin struct {
	o     *options
	m     commandMode
	ld    *steer.Load
	real  *[]report.LevelStats // the run's levels: a remeasured level replaces its calibration run there
	spent float64              // the load-seconds of every level run, calibration runs replaced included
	// replaced are the levels whose calibration run a full one replaced.
	replaced map[sweep.LevelKey]bool
	levels   []fit.Level // the server's levels, as the fit reads them
	fits     int
	fitted   []string // the levels the last model was fitted on
	// full is the last model's full search on the twin, and predicted its
	// figures at each level, for the grading of the server's next level.
	full      []report.LevelStats
	predicted map[sweep.LevelKey]fit.Measured
}

var _ steer.Predictor = (*twin)(nil)

// add keeps a finished server level for the next fit (its records
// copied: a sink's reader reuses them) and grades it against the twin's
// prediction of it, if the last model ran it. A level measured again at
// full length (steer.Load.Remeasured) replaces its calibration run in the
// run's levels and the fit's: the search, the steering and the answer
// read the full one.
func (t *twin) add(l *sweep.Level, s report.LevelStats, sum *report.Summary) {
	if t == nil {
		return
	}
	t.spent += s.MeasuredSpan.Seconds()
	var recs []client.Record
	for r := range l.All() {
		recs = append(recs, *r)
	}
	ms := measuredOf(l, s)
	if k := s.Key(); slices.Contains(t.ld.Remeasured, k) && !t.ld.Short(k) && !t.replaced[k] {
		t.replaced[k] = true  // its first full run: the later repeats join it
		n := len(*t.real) - 1 // s, just appended
		*t.real = append(slices.DeleteFunc((*t.real)[:n], func(o report.LevelStats) bool { return o.Key() == k }), s)
		t.levels = slices.DeleteFunc(t.levels, func(f fit.Level) bool { return f.Name == ms.Level })
	}
	t.levels = append(t.levels, fit.Level{Name: ms.Level, Records: recs, Server: l.Server, Measured: &ms})
	if p, ok := t.predicted[s.Key()]; ok {
		sum.Grading = append(sum.Grading, gradeOf(p, ms))
	}
}

// Predict fits the levels so far and predicts the boundary: the mode's
// search on the twin, then its slow corner at the passing level and its
// fast corner at the failing one.
func (t *twin) Predict(ctx context.Context) (steer.Prediction, error) {
	m, err := fit.FromLevels(t.levels, fit.Options{Resamples: twinResamples})
	if err != nil {
		return steer.Prediction{}, err
	}
	t.fits++
	t.fitted = nil
	var keys []sweep.LevelKey
	for _, s := range *t.real {
		t.fitted, keys = append(t.fitted, report.LevelName(s)), append(keys, s.Key())
	}
	p := steer.Prediction{Text: "fitted on " + sweep.NameList(slices.SortedFunc(slices.Values(keys), sweep.LevelKey.Compare))}
	// A poor fit is refused; an ill-conditioned one waits for more
	// levels: the calibration levels are short, and the next may tell
	// the parameter.
	if why, poor := twinRefuses(m); poor {
		p.Refused = why
		return p, nil
	} else if why != "" {
		p.Wait = why
		return p, nil
	}
	full, measured, err := t.run(ctx, m, nil)
	if err != nil {
		return p, err
	}
	t.full, t.predicted = full, measured
	rec := report.Recommend(full, t.o.SLO)
	p.Pass, p.Fail = rec.Recommended, rec.FirstFail
	if p.Fail.IsZero() {
		p.Fail = rec.Unjudged
	}
	p.Text += "; predicts " + t.says(p)
	loads := *m.Calibration
	loads.IllConditioned = nil // twinRefuses judged those
	// A steered level is measured before its answer is believed: of the
	// range, only the load bound applies, not the unseen slot limit's.
	loads.SlotsKnown = true
	if why := loads.Check(t.asked(p.Pass, p.Fail)); len(why) > 0 {
		p.Wait = why[0]
		return p, nil
	}
	if p.Pass.IsZero() {
		return p, nil
	}
	p.Pinned, p.FailPinned, err = t.corners(ctx, m, p)
	switch {
	case p.Pinned:
		p.Text += " (80% corners agree)"
	case p.FailPinned:
		p.Text += " (80% corners disagree; the fast one fails " + p.Fail.Name() + ")"
	default:
		p.Text += " (80% corners disagree)"
	}
	return p, err
}

// says is what prediction p says of the two levels.
func (t *twin) says(p steer.Prediction) string {
	switch {
	case p.Pass.IsZero():
		return "no level passes"
	case p.Fail.IsZero():
		return p.Pass.Name() + " passes, none above it fails"
	}
	return p.Pass.Name() + " passes, " + p.Fail.Name() + " fails"
}

// corners reports whether the slow corner passes p.Pass and the fast one
// fails p.Fail (pinned, true when there is no p.Fail), and whether the
// fast one fails p.Fail (failPinned, false when there is none).
func (t *twin) corners(ctx context.Context, m fit.Model, p steer.Prediction) (pinned, failPinned bool, err error) {
	slow, _, err := t.run(ctx, m.Corner(true), []sweep.LevelKey{p.Pass})
	if err != nil {
		return false, false, err
	}
	passPinned := t.passes(slow, p.Pass)
	if p.Fail.IsZero() {
		return passPinned, false, nil
	}
	fast, _, err := t.run(ctx, m.Corner(false), []sweep.LevelKey{p.Fail})
	failPinned = err == nil && !t.passes(fast, p.Fail)
	return passPinned && failPinned, failPinned, err
}

// asked is what predicting at the levels ks asks of the model: their
// loads, and the run's lengths.
func (t *twin) asked(ks ...sweep.LevelKey) fit.Asked {
	a := t.o.asked()
	a.Concurrency, a.Rates = nil, nil
	for _, k := range ks {
		switch {
		case k.IsZero():
		case k.Mode == sweep.RateMode:
			a.Rates = append(a.Rates, k.Load)
		case !k.IsOpen():
			a.Concurrency = append(a.Concurrency, k.Concurrency)
		}
	}
	return a
}

// passes reports whether level k in stats passed: each run met the SLO,
// delivered and, in an open loop, kept up.
func (t *twin) passes(stats []report.LevelStats, k sweep.LevelKey) bool {
	ran := false
	for _, s := range stats {
		if s.Key() != k {
			continue
		}
		ran = true
		if !report.CheckSLO(s, t.o.SLO).Pass || s.RequestsOK == 0 || s.Unstable {
			return false
		}
	}
	return ran
}

// verdict is the steering's steer.Verdict on the server's levels.
func (t *twin) verdict(k sweep.LevelKey) (pass, measured bool) {
	measured = slices.ContainsFunc(*t.real, func(s report.LevelStats) bool { return s.Key() == k })
	return measured && t.passes(*t.real, k), measured
}

// run runs the mode's search (or only the levels keys) on a simulator
// serving m, with the run's prompts and counts, and returns the levels'
// figures and their graded figures by key.
func (t *twin) run(ctx context.Context, m fit.Model, keys []sweep.LevelKey) ([]report.LevelStats, map[sweep.LevelKey]fit.Measured, error) {
	o := t.o
	scfg, err := sim.Preset(o.SimPreset)
	if err != nil {
		return nil, nil, err
	}
	scfg.Model = o.Model
	m.Apply(&scfg)
	srv, err := sim.New(scfg)
	if err != nil {
		return nil, nil, err
	}
	addr, err := srv.Start(ctx, "127.0.0.1:0")
	if err != nil {
		return nil, nil, fmt.Errorf("starting the twin: %w", err)
	}
	defer srv.Close()
	cc := o.clientConfig()
	cc.BaseURL, cc.APIKey, cc.Headers, cc.Streamed = "http://"+addr.String()+"/v1", "", nil, nil
	cl, err := client.New(cc)
	if err != nil {
		return nil, nil, err
	}
	var stats []report.LevelStats
	measured := map[sweep.LevelKey]fit.Measured{}
	cfg := sweep.Config{Requests: o.Requests, Duration: o.Duration, Warmup: o.Warmup, Repeat: o.Repeat,
		Prompt: o.Work.Set.Prompter(), DrainTimeout: o.DrainTimeout, Classes: o.classDraw()}
	t.m.Start(ctx, mode.Start{Line: &o.Line, Client: cl, Stderr: io.Discard, Stats: &stats}, &cfg)
	if keys != nil {
		cfg.Load = steer.Only(cfg.Load, keys)
	}
	err = sweep.Run(ctx, cfg, cl, func(l sweep.Level) error {
		s := report.Summarize(l, o.settings())
		report.Judge(&s, o.SLO)
		stats = append(stats, s)
		measured[s.Key()] = measuredOf(&l, s)
		return nil
	})
	return stats, measured, err
}

// steered makes cfg's Load the steered search, writing its steps on
// stderr; nil without --twin.
func (o *options) steered(ctx context.Context, m commandMode, cfg *sweep.Config, real *[]report.LevelStats, say func(string)) (*twin, *steer.Load) {
	if !o.Twin {
		return nil, nil
	}
	t := &twin{o: o, m: m, real: real, replaced: map[sweep.LevelKey]bool{}}
	t.ld = steer.New(ctx, cfg.Load, t, t.verdict, say)
	t.ld.Pool = o.Repeat <= 1
	cfg.Load = t.ld
	return t, t.ld
}

// account is the steered search's summary.json "twin", from the server's
// levels stats and the grading so far.
func (t *twin) account(ld *steer.Load, search string, sum *report.Summary) *report.TwinJSON {
	j := &report.TwinJSON{Search: search, FittedOn: t.fitted, Predictions: t.fits, Pinned: ld.Last.Pinned, Fallback: ld.Fallback}
	names := func(ks []sweep.LevelKey) []string {
		var out []string
		for _, k := range ks {
			if !k.IsZero() {
				out = append(out, k.Name())
			}
		}
		return out
	}
	j.Steered, j.Calibration, j.Remeasured = names(ld.Steered), names(ld.Calibration), names(ld.Remeasured)
	if n := names([]sweep.LevelKey{ld.Last.Pass, ld.Last.Fail}); len(n) > 0 {
		j.Pass = n[0]
		if !ld.Last.Fail.IsZero() {
			j.Fail = n[len(n)-1]
		}
	}
	ran := ld.Ran()
	j.Levels, j.LoadSeconds = len(ran), roundTo1(t.spent)
	var full []sweep.LevelKey
	for _, s := range t.full {
		full = append(full, s.Key())
	}
	j.FullLevels, j.FullLoadSeconds = len(full), roundTo1(report.LoadSeconds(t.full, full))
	if c := ld.Confirmed; !c.IsZero() {
		if pass, _ := t.verdict(c); pass {
			j.Confirmed = c.Name()
			for i := range sum.Grading {
				if sum.Grading[i].Level == c.Name() {
					j.ConfirmError = &sum.Grading[i]
				}
			}
		}
	}
	return j
}

func roundTo1(v float64) float64 { return float64(int64(v*10+0.5)) / 10 }
