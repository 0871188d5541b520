package rate_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/mode/rate"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// crowdedServer is an in-memory server (a sweep.Doer) for fake time: every
// request takes 240 ms, and its first token comes 10 ms × the requests in
// flight (itself included) after it starts. At a constant rate r the
// steady in-flight count is 1 + ⌊0.24·r⌋, so TTFT is exact.
type crowdedServer struct {
	epoch    time.Time
	inflight atomic.Int64
}

func (s *crowdedServer) Now() time.Duration { return time.Since(s.epoch) }

func (s *crowdedServer) Do(ctx context.Context, p client.Prompt) client.Record {
	r := client.Record{PromptID: p.ID, Start: s.Now(), Status: 200, FinishReason: "length", HasUsage: true, CompletionTokens: 2}
	n := s.inflight.Add(1)
	defer s.inflight.Add(-1)
	ttft := time.Duration(n) * 10 * time.Millisecond
	for _, at := range []time.Duration{ttft, 240 * time.Millisecond} {
		select {
		case <-time.After(r.Start + at - s.Now()):
		case <-ctx.Done():
			r.ErrorClass, r.Error, r.End = client.Canceled, "canceled", s.Now()
			return r
		}
		r.ChunkAt = append(r.ChunkAt, at)
	}
	r.FirstToken, r.FirstContent, r.LastToken, r.End = r.Start+ttft, r.Start+ttft, r.Start+240*time.Millisecond, s.Now()
	return r
}

// TestRatesSearchSequenceInFakeTime runs --rates auto's search through the
// sweep and the figures, in fake time (testing/synctest), against a server
// whose TTFT p95 at rate r is 10 ms × (1 + ⌊0.24·r⌋), under an SLO of TTFT
// p95 ≤ 55 ms: rates up to 20.8 req/s pass (50 ms), and none is unstable.
// Worked by hand from openloop.Search's doc comment: the ramp 1, 4, 16 (40 ms) passes,
// 64 (160 ms) fails; then √(16·64) = 32 (80 ms) fails, √(16·32) = 22.6
// (60 ms) fails, √(16·22.6) = 19.0 (50 ms) passes, √(19·22.6) = 20.7
// (50 ms) passes, and the eighth level ends the search.
func TestRatesSearchSequenceInFakeTime(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var stats []report.LevelStats
		slo := report.SLO{TTFTP95: 55 * time.Millisecond}
		rates := rate.NewSearch(mode.JudgeRates(&stats, slo, sweep.LevelKey{Mode: sweep.RateMode}))
		// The warm-up covers the ramp to the steady in-flight count (16
		// at 64 req/s), so every measured request sees the steady state.
		cfg := sweep.Config{Load: &rate.Load{Chooser: rates, Spec: sweep.RateSpec{Arrival: sweep.Constant}}, Warmup: 16,
			Prompt: sweep.Cycle([]client.Prompt{{Text: "p"}})}
		var tried []float64
		p95 := map[float64]time.Duration{}
		err := sweep.Run(context.Background(), cfg, &crowdedServer{epoch: time.Now()}, func(l sweep.Level) error {
			s := report.Summarize(l, report.Settings{})
			stats = append(stats, s)
			tried, p95[l.Rate] = append(tried, l.Rate), s.TTFTP95
			if s.Unstable {
				t.Errorf("rate %g flagged unstable: %s", l.Rate, s.UnstableReason)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		want := []float64{1, 4, 16, 64, 32, 22.6, 19, 20.7}
		if !slices.Equal(tried, want) {
			t.Errorf("tried %v, want %v", tried, want)
		}
		for r, ms := range map[float64]int{1: 10, 4: 10, 16: 40, 64: 160, 32: 80, 22.6: 60, 19: 50, 20.7: 50} {
			if p95[r] != time.Duration(ms)*time.Millisecond {
				t.Errorf("TTFT p95 at %g req/s %v, want %dms", r, p95[r], ms)
			}
		}
		wantSentence := "--rates auto: the highest stable rate meeting the SLO is 20.7 req/s offered (nominal 20.7); 22.6 req/s offered (nominal 22.6) failed (tried 1,4,16,64,32,22.6,19,20.7 req/s)."
		if s := rates.Sentence(); s != wantSentence {
			t.Errorf("answer %q, want %q", s, wantSentence)
		}
	})
}
