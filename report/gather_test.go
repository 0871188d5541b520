package report

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/internal/hist"
	"github.com/toksweep/toksweep/internal/pct"
)

// jitteredLoop is a closed loop whose gaps and send lags vary from token to
// token, so that the pooled figures rest on many distinct values.
func jitteredLoop(c, n int) []client.Record {
	rng := rand.New(rand.NewPCG(7, 8))
	recs := closedLoopOf(c, n, 3*msec, func(w, i int) client.Record {
		r := stream(0, time.Duration(50+rng.IntN(100))*msec, 0, 40+rng.IntN(40))
		at := r.ChunkAt[0]
		for j := range r.ChunkAt {
			at += time.Duration(rng.IntN(30_000_000)) // 0 to 30 ms
			r.ChunkAt[j] = at
			r.SendLag = append(r.SendLag, time.Duration(rng.IntN(2_000_000)-100_000))
		}
		r.LastToken, r.End = r.ChunkAt[len(r.ChunkAt)-1], r.ChunkAt[len(r.ChunkAt)-1]
		r.CompletionTokens = len(r.ChunkAt) * 3 / 2 // 1.5 tokens a chunk
		return r
	})
	return recs
}

// A level summarised from a Source (its records read back one at a time,
// as from a file) has the same figures as the same level held in memory,
// and the source is read twice: once for the requests, once for the
// window.
func TestSummarizeFromSource(t *testing.T) {
	held := level(8, jitteredLoop(8, 5)...)
	passes := 0
	streamed := held
	streamed.Records = nil
	streamed.Source = func(yield func(*client.Record) bool) {
		passes++
		for i := range held.Records {
			r := held.Records[i] // a fresh copy, as a file read gives
			if !yield(&r) {
				return
			}
		}
	}
	want, got := figures(Summarize(held, Settings{})), figures(Summarize(streamed, Settings{}))
	if passes != 2 {
		t.Errorf("Summarize read its source %d times, want 2", passes)
	}
	for col, w := range want {
		if got[col] != w {
			t.Errorf("%s = %q from a source, %q from records", col, got[col], w)
		}
	}
	if want["aggregate_output_tps"] == "" || want["itl_p99_ms"] == "" {
		t.Fatalf("the level has no aggregate or ITL: %v", want)
	}
}

// The pooled per-chunk figures are within hist.RelErr of the exact
// weighted nearest rank over every gap (ITL) and every send lag (client
// delay); the per-request ones stay exact.
func TestPooledFiguresWithinRelErr(t *testing.T) {
	recs := jitteredLoop(16, 20)
	s := Summarize(level(16, recs...), Settings{})
	var itl []pct.Weighted
	var lags, ttft []float64
	for i := range recs {
		r := &recs[i]
		if r.Warmup {
			continue
		}
		w := tokenWeight(r)
		for j := 1; j < len(r.ChunkAt); j++ {
			itl = append(itl, pct.Weighted{Value: float64(r.ChunkAt[j]-r.ChunkAt[j-1]) / w, Weight: w})
		}
		for _, d := range r.SendLag {
			lags = append(lags, float64(d))
		}
		ttft = append(ttft, float64(RequestTTFT(r)))
	}
	slices.SortFunc(itl, func(a, b pct.Weighted) int { return cmp.Compare(a.Value, b.Value) })
	slices.Sort(lags)
	slices.Sort(ttft)
	for _, c := range []struct {
		name  string
		got   time.Duration
		exact float64
	}{
		{"itl p50", s.ITLP50, pct.WeightedPercentile(itl, 50)},
		{"itl p99", s.ITLP99, pct.WeightedPercentile(itl, 99)},
		{"client delay p99", s.ClientDelayP99, Percentile(lags, 99)},
	} {
		// 0.5 ns: the figure is rounded to whole nanoseconds.
		if d := math.Abs(float64(c.got) - c.exact); d > hist.RelErr*math.Abs(c.exact)+0.5 {
			t.Errorf("%s = %v, exact %.0f ns: off by %.3g%%", c.name, c.got, c.exact, 100*d/c.exact)
		}
	}
	if want := itl[len(itl)-1].Value; s.ITLMax != duration(want) {
		t.Errorf("itl max = %v, want %v exactly", s.ITLMax, duration(want))
	}
	if want := duration(Percentile(ttft, 99)); s.TTFTP99 != want {
		t.Errorf("ttft p99 = %v, want %v exactly", s.TTFTP99, want)
	}
}
