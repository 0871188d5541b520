package steer_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/mode/closed"
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
// queue server under TTFT p95 ≤ 150 ms (C ≤ 4 waits no wave: 10 ms; C=8
// one: 110 ms; C=12 two: 210 ms), and returns the concurrencies run and
// the steering's lines.
func steered(t *testing.T, stats *[]report.LevelStats, pred steer.Predictor) ([]int, *steer.Load, []string) {
	slo := report.SLO{TTFTP95: 150 * time.Millisecond}
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
	var ran []int
	err := sweep.Run(context.Background(), cfg, &queueServer{epoch: time.Now(), slots: make(chan struct{}, 4)}, func(l sweep.Level) error {
		s := report.Summarize(l, report.Settings{})
		report.Judge(&s, slo)
		*stats = append(*stats, s)
		ran = append(ran, l.Concurrency)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ran, ld, lines
}

// The mode's own search here is 1, 2, 4, 8: C=8 passes (one wave
// waits, 110 ms) and adds nothing over C=4 (4 slots), so it stops at
// saturation. The steered one runs the mode's first Warm levels (1, 2),
// then the scripted model's; C=16 fails on the server (3 waves wait).
func TestSteeredKeysInFakeTime(t *testing.T) {
	t.Parallel()
	pinned := steer.Prediction{Pass: key(8), Fail: key(12), Pinned: true}
	loose := steer.Prediction{Pass: key(8), Fail: key(12)}
	wrong := steer.Prediction{Pass: key(4), Fail: key(8)}
	for _, tc := range []struct {
		name string
		say  map[int]steer.Prediction
		err  error
		want []int
		fall bool
	}{
		// Pinned at once: the last measurement confirms C=8, which passes.
		{name: "pinned", say: map[int]steer.Prediction{2: pinned}, want: []int{1, 2, 8}},
		// Not pinned: measure the straddle's ends (C=8 passes, C=12 fails),
		// and the server's levels settle it.
		{name: "straddle", say: map[int]steer.Prediction{2: loose, 3: loose, 4: loose}, want: []int{1, 2, 8, 12}},
		// A wrong confirm: C=16 fails on the server; predicting again pins
		// the boundary at C=8, which the server confirms.
		{name: "failing confirm", say: map[int]steer.Prediction{2: {Pass: key(16), Fail: key(17), Pinned: true}, 3: pinned}, want: []int{1, 2, 16, 8}},
		// The server disagrees (C=8 passes): the mode's search runs the rest
		// from its own state, judging C=4 and C=8 from their stats.
		{name: "disagree", say: map[int]steer.Prediction{2: wrong, 3: wrong, 4: wrong}, want: []int{1, 2, 4, 8}, fall: true},
		// Refused: the mode's search runs the rest.
		{name: "refused", say: map[int]steer.Prediction{2: {Refused: "ill-conditioned"}}, want: []int{1, 2, 4, 8}, fall: true},
		// Not yet: the mode's next level runs, then the model steers.
		{name: "wait", say: map[int]steer.Prediction{2: {Wait: "past 2x"}, 3: pinned}, want: []int{1, 2, 4, 8}},
		// A failing fit falls back too.
		{name: "error", err: errors.New("no steps"), want: []int{1, 2, 4, 8}, fall: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				var stats []report.LevelStats
				pred := &script{stats: &stats, say: tc.say, err: tc.err}
				ran, ld, lines := steered(t, &stats, pred)
				if !slices.Equal(ran, tc.want) {
					t.Errorf("ran %v, want %v; lines %q", ran, tc.want, lines)
				}
				if (ld.Fallback != "") != tc.fall {
					t.Errorf("fallback %q, want one: %v", ld.Fallback, tc.fall)
				}
			})
		})
	}
}
