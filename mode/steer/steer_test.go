package steer_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/mode/closed"
	"github.com/toksweep/toksweep/mode/rate"
	"github.com/toksweep/toksweep/mode/steer"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// queueServer is an in-memory server for fake time with 4 batch slots:
// every request runs 100 ms once it has a slot, its first token 10 ms
// after that, so at concurrency C the TTFT of the last wave is the wait
// for the waves ahead of it.
type queueServer struct {
	epoch time.Time
	slots chan struct{}
}

func (s *queueServer) Now() time.Duration { return time.Since(s.epoch) }

func (s *queueServer) Do(ctx context.Context, p client.Prompt) client.Record {
	r := client.Record{PromptID: p.ID, Start: s.Now(), Status: 200, FinishReason: "length", HasUsage: true, CompletionTokens: 2}
	s.slots <- struct{}{}
	defer func() { <-s.slots }()
	got := s.Now()
	for _, at := range []time.Duration{10 * time.Millisecond, 100 * time.Millisecond} {
		time.Sleep(got + at - s.Now())
		r.ChunkAt = append(r.ChunkAt, s.Now()-r.Start)
	}
	r.FirstToken, r.FirstContent, r.LastToken, r.End = got+10*time.Millisecond, got+10*time.Millisecond, s.Now(), s.Now()
	return r
}

// script is a fake predictor: it takes a second of fake time (a twin's
// run) and answers the prediction for the number of levels measured.
type script struct {
	stats *[]report.LevelStats
	say   map[int]steer.Prediction
	err   error
	asked []int // the levels measured at each call
}

func (s *script) Predict(ctx context.Context) (steer.Prediction, error) {
	time.Sleep(time.Second)
	n := len(*s.stats)
	s.asked = append(s.asked, n)
	if s.err != nil {
		return steer.Prediction{}, s.err
	}
	return s.say[n], nil
}

func key(c int) sweep.LevelKey { return sweep.LevelKey{Mode: sweep.ClosedMode, Concurrency: c} }

// steered runs --levels auto (up to 64) steered by pred against the
// queue server under TTFT p95 ≤ ttft (C ≤ 4 waits no wave: 10 ms; C=5 to
// 8 one: 110 ms; C=12 two: 210 ms), 24 requests a level, and returns
// each level run as "C/requests measured" and the steering's lines.
func steered(t *testing.T, stats *[]report.LevelStats, pred steer.Predictor, ttft time.Duration) ([]string, *steer.Load, []string) {
	slo := report.SLO{TTFTP95: ttft}
	search := closed.NewSearch(64, 1, mode.JudgeLevels(stats, slo, sweep.ClosedMode))
	verdict := func(k sweep.LevelKey) (bool, bool) {
		for _, g := range report.GroupByKey(*stats) {
			if g.Key == k {
				return g.Passes(slo), true
			}
		}
		return false, false
	}
	var lines []string
	ld := steer.New(context.Background(), closed.Load{Chooser: search}, pred, verdict, func(s string) { lines = append(lines, s) })
	cfg := sweep.Config{Load: ld, Requests: 24, Prompt: sweep.Cycle([]client.Prompt{{Text: "p"}})}
	var ran []string
	err := sweep.Run(context.Background(), cfg, &queueServer{epoch: time.Now(), slots: make(chan struct{}, 4)}, func(l sweep.Level) error {
		s := report.Summarize(l, report.Settings{})
		report.Judge(&s, slo)
		// A level measured again replaces its calibration run, as the
		// app's steered search does (app/twin.go).
		*stats = slices.DeleteFunc(*stats, func(o report.LevelStats) bool { return o.Key() == s.Key() })
		*stats = append(*stats, s)
		ran = append(ran, fmt.Sprintf("%d/%d", l.Concurrency, s.RequestsOK))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ran, ld, lines
}

// The mode's own search here is 1, 2, 4, 8: C=8 passes (one wave
// waits, 110 ms) and adds nothing over C=4 (4 slots), so it stops at
// saturation. The steered one runs the mode's first Warm levels (1, 2)
// as calibration levels (6 of the 24 requests: a Calibrate-th), then
// the scripted model's at full length; C=16 fails on the server (3
// waves wait).
func TestSteeredKeysInFakeTime(t *testing.T) {
	t.Parallel()
	pinned := steer.Prediction{Pass: key(8), Fail: key(12), Pinned: true}
	loose := steer.Prediction{Pass: key(8), Fail: key(12)}
	low := steer.Prediction{Pass: key(4), Fail: key(6)}
	wait := steer.Prediction{Wait: "past 2x"}
	knee := steer.Prediction{Pass: key(8), Pinned: true}
	failJudged := steer.Prediction{Pass: key(8), Fail: key(12), FailPinned: true}
	for _, tc := range []struct {
		name  string
		say   map[int]steer.Prediction
		err   error
		ttft  time.Duration // the SLO's TTFT p95; 0: 150 ms
		want  []string
		calib []int // the calibration levels
		fall  bool
	}{
		// Pinned at once: the last measurement confirms C=8, which passes.
		{name: "pinned", say: map[int]steer.Prediction{2: pinned}, want: []string{"1/6", "2/6", "8/24"}, calib: []int{1, 2}},
		// Not pinned: measure the straddle's ends, the failing one first
		// (C=12 fails, C=8 passes), and the server's levels settle it.
		{name: "straddle", say: map[int]steer.Prediction{2: loose, 3: loose, 4: loose}, want: []string{"1/6", "2/6", "12/24", "8/24"}, calib: []int{1, 2}},
		// Not pinned, but the fast corner fails C=12: the model judges
		// that neighbour failing, and only the answer, C=8, is measured.
		{name: "fail judged", say: map[int]steer.Prediction{2: failJudged, 3: failJudged}, want: []string{"1/6", "2/6", "8/24"}, calib: []int{1, 2}},
		// The same when the answer ran as a calibration level (C=4): the
		// steering stops, and C=4 is measured again at full length.
		{name: "fail judged, answer ran", say: map[int]steer.Prediction{2: wait, 3: {Pass: key(4), Fail: key(5), FailPinned: true}},
			want: []string{"1/6", "2/6", "4/6", "4/24"}, calib: []int{1, 2, 4}},
		// C=12 fails on the server; refitted, the model's search stops at
		// C=8 (its knee: none above fails), which says nothing of C=9 to
		// 11: the server's bracket is measured midway (C=10, C=9 fail),
		// then C=8, the answer, at full length.
		{name: "knee below a fail", say: map[int]steer.Prediction{2: wait, 3: wait, 4: {Pass: key(8), Fail: key(12)}, 5: knee, 6: knee, 7: knee},
			want: []string{"1/6", "2/6", "4/6", "8/8", "12/24", "10/24", "9/24", "8/24"}, calib: []int{1, 2, 4, 8}},
		// A wrong confirm: C=16 fails on the server; predicting again pins
		// the boundary at C=8, but a model the server contradicted has
		// both ends of its pair measured: C=12 fails, C=8 passes.
		{name: "failing confirm", say: map[int]steer.Prediction{2: {Pass: key(16), Fail: key(17), Pinned: true}, 3: pinned, 4: pinned, 5: pinned}, want: []string{"1/6", "2/6", "16/24", "12/24", "8/24"}, calib: []int{1, 2}},
		// The server disagrees (C=6 passes): one of the model's steps past
		// it, C=8 passes too; the model still says C=6 fails, and C=8 ran:
		// the mode's search runs the rest from its own state, judging C=4
		// (not run: it runs) and C=8 from their stats.
		{name: "disagree", say: map[int]steer.Prediction{2: low, 3: low, 4: low, 5: low}, want: []string{"1/6", "2/6", "6/24", "8/24", "4/24"}, calib: []int{1, 2}, fall: true},
		// Refused: the mode's search runs the rest at full length.
		{name: "refused", say: map[int]steer.Prediction{2: {Refused: "ill-conditioned"}}, want: []string{"1/6", "2/6", "4/24", "8/24"}, calib: []int{1, 2}, fall: true},
		// Not yet: the mode's next level runs as a calibration level, then
		// the model steers.
		{name: "wait", say: map[int]steer.Prediction{2: wait, 3: pinned}, want: []string{"1/6", "2/6", "4/6", "8/24"}, calib: []int{1, 2, 4}},
		// A failing fit falls back too.
		{name: "error", err: errors.New("no steps"), want: []string{"1/6", "2/6", "4/24", "8/24"}, calib: []int{1, 2}, fall: true},
		// Under 50 ms, C=8 fails (110 ms) as a calibration level (8
		// requests: one per worker): it is measured again at full length
		// before the mode's search believes it; the bisection's levels run
		// at full length (a level failed), and the answer, C=4, ran as a
		// calibration level, so it is measured again too. (The model
		// waited throughout: the mode's search ended it.)
		{name: "calibration fails", say: map[int]steer.Prediction{2: wait, 3: wait, 4: wait, 5: wait, 6: wait},
			ttft: 50 * time.Millisecond, want: []string{"1/6", "2/6", "4/6", "8/8", "8/24", "6/24", "5/24", "4/24"}, calib: []int{1, 2, 4, 8}, fall: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				var stats []report.LevelStats
				pred := &script{stats: &stats, say: tc.say, err: tc.err}
				ran, ld, lines := steered(t, &stats, pred, cmp.Or(tc.ttft, 150*time.Millisecond))
				if !slices.Equal(ran, tc.want) {
					t.Errorf("ran %v, want %v; lines %q", ran, tc.want, lines)
				}
				var calib []int
				for _, k := range ld.Calibration {
					calib = append(calib, k.Concurrency)
				}
				if !slices.Equal(calib, tc.calib) {
					t.Errorf("calibration levels %v, want %v", calib, tc.calib)
				}
				if (ld.Fallback != "") != tc.fall {
					t.Errorf("fallback %q, want one: %v", ld.Fallback, tc.fall)
				}
			})
		})
	}
}

// A calibration level's budget is a Calibrate-th of the mode's, counted
// by the mode's own rule: a closed loop's 4 per worker (at least 8)
// becomes one per worker (at least 2), an explicit --requests a fourth
// of it but still one per worker; a rate level's 10 s of arrivals (at
// least 20) 2.5 s (at least 5). A level not marked keeps its budget.
func TestCalibrationBudget(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		ld       sweep.Load
		requests int
		k        sweep.LevelKey
		full     int
		short    int
	}{
		{"closed C=1", closed.Load{Levels: []int{1}}, 0, key(1), 8, 2},
		{"closed C=8", closed.Load{Levels: []int{8}}, 0, key(8), 32, 8},
		{"closed C=8, --requests 10", closed.Load{Levels: []int{8}}, 10, key(8), 10, 8},
		{"closed C=2, --requests 100", closed.Load{Levels: []int{2}}, 100, key(2), 100, 25},
		{"rate 4/s", &rate.Load{Rates: []float64{4}}, 0, sweep.LevelKey{Mode: rate.Name, Load: 4}, 40, 10},
		{"rate 1/s", &rate.Load{Rates: []float64{1}}, 0, sweep.LevelKey{Mode: rate.Name, Load: 1}, 20, 5},
	} {
		cfg := &sweep.Config{Requests: tc.requests}
		var stats []report.LevelStats
		ld := steer.New(context.Background(), tc.ld, &script{stats: &stats}, func(sweep.LevelKey) (bool, bool) { return true, true }, func(string) {})
		if got := ld.Measured(cfg, tc.k); got != tc.full {
			t.Errorf("%s before it runs: %d requests, want %d", tc.name, got, tc.full)
		}
		next := ld.Keys() // its first key, one of the mode's first Warm
		if k, ok := next(); !ok || k != tc.k || !ld.Short(k) {
			t.Fatalf("%s: first key %v (%v), short %v; want %v, short", tc.name, k, ok, ld.Short(k), tc.k)
		}
		if got := ld.Measured(cfg, tc.k); got != tc.short {
			t.Errorf("%s as a calibration level: %d requests, want %d", tc.name, got, tc.short)
		}
	}
}
