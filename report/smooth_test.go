package report

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
)

// TestRequestSmoothness checks each figure on streams with known gaps,
// against waits worked out by hand (reader at 6 tok/s: 1/6 s per token).
func TestRequestSmoothness(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name   string
		rec    client.Record
		maxGap time.Duration
		stalls int
		wait   time.Duration
		ratio  float64
	}{
		// Read up to 0.5 s after three chunks; the fourth comes at 1.5 s:
		// 1 s of waiting, then the fifth (1.6 s) is there before the reader
		// is done with the fourth (1.667 s). Reading time 5/6 s.
		{"one stall", chunked(5, 0, 100, 200, 1500, 1600), 1300 * msec, 1, time.Second, 1.2},
		// The wait for the first token is TTFT, not a gap.
		{"TTFT is not a gap", chunked(5, 5000, 5100, 5200, 6500, 6600), 1300 * msec, 1, time.Second, 1.2},
		// Three tokens a chunk, 0.5 s of reading each: read to 0.5 s, wait
		// 0.5 s for the chunk at 1 s, read to 1.5 s, by which time the third
		// (1.2 s) is there. A gap of exactly 1 s is not a stall.
		{"multi-token chunks", chunked(9, 0, 1000, 1200), time.Second, 0, 500 * msec, 1.0 / 3},
		// Faster than the reader: never waits.
		{"smooth", chunked(4, 0, 100, 200, 300), 100 * msec, 0, 0, 0},
		// Every 250 ms, one token: each gap leaves the reader 250 − 166.7 ms
		// short; three gaps are 250 ms of waiting over 4/6 s of reading.
		{"slow and steady", chunked(4, 0, 250, 500, 750), 250 * msec, 0, 250 * msec, 0.375},
		{"one chunk", chunked(3, 400), NoSample, 0, 0, 0},
		{"no chunk", chunked(0), NoSample, 0, 0, nan},
		{"usage says no token", chunked(0, 0, 2000), 2000 * msec, 1, 0, nan},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := RequestSmoothness(&tc.rec, 6)
			if got.MaxGap != tc.maxGap || got.Stalls != tc.stalls {
				t.Errorf("max gap %v, stalls %d; want %v, %d", got.MaxGap, got.Stalls, tc.maxGap, tc.stalls)
			}
			if d := got.Wait - tc.wait; d < -time.Microsecond || d > time.Microsecond {
				t.Errorf("wait %v, want %v", got.Wait, tc.wait)
			}
			if math.IsNaN(tc.ratio) != math.IsNaN(got.RebufferRatio) || math.Abs(got.RebufferRatio-tc.ratio) > 1e-9 {
				t.Errorf("rebuffer ratio %v, want %v", got.RebufferRatio, tc.ratio)
			}
		})
	}
}

// TestSummarizeSmoothness checks the level figures: over successful
// requests only, percentiles by nearest rank, and each share's denominator.
func TestSummarizeSmoothness(t *testing.T) {
	stalled := chunked(5, 0, 100, 200, 1500, 1600) // max gap 1.3 s, ratio 1.2
	smooth := chunked(4, 0, 100, 200, 300)         // max gap 100 ms, ratio 0
	single := chunked(3, 400)                      // no gap, ratio 0
	empty := chunked(0)                            // successful, no token: no stall, no reader
	bad := with(chunked(5, 0, 9000), func(r *client.Record) { r.ErrorClass, r.Status = client.HTTP5xx, 500 })
	s := Summarize(level(4, stalled, smooth, single, empty, bad), Settings{})
	if s.MaxGapP95 != 1300*msec || s.StallShare != 0.25 || math.Abs(s.RebufferRatioP95-1.2) > 1e-12 || math.Abs(s.SmoothShare-2.0/3) > 1e-12 {
		t.Fatalf("max gap p95 %v, stall share %v, rebuffer p95 %v, smooth share %v; want 1.3s, 0.25, 1.2, 0.667",
			s.MaxGapP95, s.StallShare, s.RebufferRatioP95, s.SmoothShare)
	}
	got := figures(s)
	for name, want := range map[string]string{"max_gap_p95_ms": "1300.000", "stall_share": "0.2500",
		"rebuffer_ratio_p95": "1.2000", "smooth_share": "0.6667"} {
		if got[name] != want {
			t.Errorf("levels.csv %s = %q, want %q", name, got[name], want)
		}
	}
	none := Summarize(level(1, bad), Settings{})
	for _, name := range []string{"max_gap_p95_ms", "stall_share", "rebuffer_ratio_p95", "smooth_share"} {
		if c := figures(none)[name]; c != "" {
			t.Errorf("no successful request: %s = %q, want empty", name, c)
		}
	}
}

// TestSLOMaxGap: --slo-max-gap D passes when max_gap_p95 ≤ D, and a level
// without the figure fails it.
func TestSLOMaxGap(t *testing.T) {
	o := SLO{MaxGapP95: time.Second}
	if !o.Set() || o.String() != "max gap p95 ≤ 1s" {
		t.Errorf("Set %v, String %q", o.Set(), o.String())
	}
	for _, tc := range []struct {
		gap    time.Duration
		failed string
	}{
		{time.Second, ""},
		{1300 * msec, "max_gap_p95 1.3s > 1s"},
		{NoSample, "max_gap_p95 none > 1s"},
	} {
		r := CheckSLO(LevelStats{Concurrency: 4, RequestsOK: 10, MaxGapP95: tc.gap}, o)
		if r.Pass != (tc.failed == "") || strings.Join(r.Failed, "; ") != tc.failed {
			t.Errorf("max gap p95 %v: pass %v %q, want %q", tc.gap, r.Pass, r.Failed, tc.failed)
		}
	}
}

// TestReadingSpeed: the run's reading speed (Settings) decides the reader's waits,
// in the level figures, in requests.jsonl and in the smoothness table's
// title. One token every 250 ms: a 3 tok/s reader (333 ms a token) never
// waits; a 12 tok/s one (83 ms a token) waits 3 × 166.7 ms = 500 ms over
// 4/12 s of reading, a ratio of 1.5; 0 falls back to ReadingSpeed, whose
// reader waits 250 ms over 4/6 s (0.375).
func TestReadingSpeed(t *testing.T) {
	rec := chunked(4, 0, 250, 500, 750)
	for _, tc := range []struct {
		speed, ratio, smooth float64
		reader               string
	}{
		{3, 0, 1, "3 tok/s"},
		{12, 1.5, 0, "12 tok/s"},
		{0, 0.375, 0, "6 tok/s"},
		// A crafted 1e308 is read as MaxReadingSpeed: 1e6 tok/s reads a
		// token in 1 µs and waits 250 ms − 1 µs three times over 4 µs of
		// reading (it made +Inf, which no JSON holds: issue 25, item 14).
		{1e308, (750e6 - 3e3) / 4e3, 0, "1e+06 tok/s"},
		{math.Inf(1), (750e6 - 3e3) / 4e3, 0, "1e+06 tok/s"},
	} {
		l := level(1, rec)
		set := Settings{ReadingSpeed: tc.speed}
		s := Summarize(l, set)
		if math.Abs(s.RebufferRatioP95-tc.ratio) > 1e-9 || s.SmoothShare != tc.smooth {
			t.Errorf("speed %v: rebuffer p95 %v, smooth share %v; want %v, %v", tc.speed, s.RebufferRatioP95, s.SmoothShare, tc.ratio, tc.smooth)
		}
		if got := ReaderText([]LevelStats{s}); got != tc.reader {
			t.Errorf("speed %v: reader %q, want %q", tc.speed, got, tc.reader)
		}
		if title := LevelTables([]LevelStats{s})[1].Title; !strings.Contains(title, "reader: "+tc.reader+")") {
			t.Errorf("speed %v: smoothness table title %q", tc.speed, title)
		}
		if got := NewRecordFigures(&l.Records[0], set.Reader()).RebufferRatio; got == nil || math.Abs(*got-tc.ratio) > 1e-4 {
			t.Errorf("speed %v: requests.jsonl rebuffer_ratio %v, want %v", tc.speed, got, tc.ratio)
		}
	}
}
