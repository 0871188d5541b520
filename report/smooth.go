package report

import (
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/toksweep/toksweep/client"
)

// Smoothness: what a reader of the stream sees between the first token and
// the last (docs/metrics.md, "Smoothness"). TTFT is not part of it: the
// wait for the first token is TTFT's figure, and the reader starts reading
// at the first token.

// StallGap is the gap between two consecutive token-carrying chunks above
// which the gap counts as a stall.
const StallGap = time.Second

// ReadingSpeed is the reader's pace in tokens per second, about 250 words
// per minute: the reader of rebuffer_ratio.
const ReadingSpeed = 6.0

// MaxReadingSpeed bounds a reader's pace: a faster reader always waits, so
// its figures are already those of any faster one, and a pace like 1e308
// would make the reading time underflow and rebuffer_ratio infinite.
const MaxReadingSpeed = 1e6

// Smoothness is one request's smoothness figures.
type Smoothness struct {
	// MaxGap is the longest gap between two consecutive token-carrying
	// chunks, max(ChunkAt[j] − ChunkAt[j−1]); NoSample with fewer than two
	// chunks. The wait before the first chunk is TTFT, not a gap.
	MaxGap time.Duration
	// Stalls counts the gaps longer than StallGap (0 with fewer than two
	// chunks).
	Stalls int
	// Wait is the reader's total waiting for tokens that had not arrived.
	Wait time.Duration
	// RebufferRatio is Wait over the reading time U / speed; NaN when the
	// request has no token to read (K = 0 or U = 0).
	RebufferRatio float64
}

// RequestSmoothness computes r's smoothness against a reader who reads
// speed tokens per second. Each chunk is taken to carry w = U/K tokens (as
// for ITL), all readable from its arrival. The reader starts at the first
// chunk and reads continuously while tokens are available: after chunk j−1
// it has read everything up to time f; when chunk j arrives later than f,
// it waits ChunkAt[j] − f. With whole tokens per chunk this is the same as
// reading token by token, since a reader never waits inside a chunk.
// docs/metrics.md defines it; this is its one implementation.
func RequestSmoothness(r *client.Record, speed float64) Smoothness {
	sm := Smoothness{MaxGap: NoSample, RebufferRatio: math.NaN()}
	k := len(r.ChunkAt)
	for j := 1; j < k; j++ {
		g := r.ChunkAt[j] - r.ChunkAt[j-1]
		if sm.MaxGap == NoSample || g > sm.MaxGap {
			sm.MaxGap = g
		}
		if g > StallGap {
			sm.Stalls++
		}
	}
	w := tokenWeight(r)
	if k == 0 || w <= 0 || !(speed > 0) {
		return sm
	}
	perChunk := w / speed * float64(time.Second) // reading time of one chunk, ns
	free := float64(r.ChunkAt[0]) + perChunk     // the reader has read everything up to here
	var wait float64
	for j := 1; j < k; j++ {
		if at := float64(r.ChunkAt[j]); at > free {
			wait += at - free
			free = at
		}
		free += perChunk
	}
	sm.Wait = time.Duration(math.Round(wait))
	sm.RebufferRatio = wait / (perChunk * float64(k))
	return sm
}

// ReaderText names the reader of stats' smoothness figures, "6 tok/s":
// the first level's reading speed (a run has one), ReadingSpeed when there
// is no level.
func ReaderText(stats []LevelStats) string {
	speed := 0.0
	if len(stats) > 0 {
		speed = stats[0].ReadingSpeed
	}
	return strconv.FormatFloat(paceOrDefault(speed), 'g', -1, 64) + " tok/s"
}

// paceOrDefault is the reader pace v, or ReadingSpeed when v is not set
// (0, or anything but a positive pace); a pace above MaxReadingSpeed (a
// crafted summary.json) is read as MaxReadingSpeed.
func paceOrDefault(v float64) float64 {
	if v > 0 {
		return min(v, MaxReadingSpeed)
	}
	return ReadingSpeed
}

// smoothness fills the per-level smoothness figures from the successful
// requests, measured (gather) against a reader at speed tok/s.
func (s *LevelStats) smoothness(ok []*request, speed float64) {
	s.ReadingSpeed = speed
	var gaps, ratios []float64
	stalled, smooth := 0, 0
	for _, r := range ok {
		sm := r.smooth
		if sm.MaxGap != NoSample {
			gaps = append(gaps, float64(sm.MaxGap))
		}
		if sm.Stalls > 0 {
			stalled++
		}
		if !math.IsNaN(sm.RebufferRatio) {
			ratios = append(ratios, sm.RebufferRatio)
			if sm.Wait == 0 {
				smooth++
			}
		}
	}
	slices.Sort(gaps)
	slices.Sort(ratios)
	s.MaxGapP95 = duration(Percentile(gaps, 95))
	s.RebufferRatioP95 = Percentile(ratios, 95)
	s.StallShare = share(stalled, len(ok))
	s.SmoothShare = share(smooth, len(ratios))
}

// share is n / of, NaN when of is 0.
func share(n, of int) float64 {
	if of == 0 {
		return math.NaN()
	}
	return float64(n) / float64(of)
}

// smoothColumns are the per-level smoothness figures.
func smoothColumns() []Column {
	fraction := func(name, def, head string, f func(*LevelStats) float64) Column {
		return Column{Name: name, Unit: "fraction", Def: def, Out: InFiles, Table: SmoothTable, Head: head,
			Decimals: fracDecimals, PeopleDecimals: 2, Value: func(s *LevelStats) Value { return number(f(s)) }}
	}
	return []Column{
		msColumn("max_gap_p95_ms", "longest gap between two token chunks per request (TTFT excluded), p95", SmoothTable, "", "max gap p95 ms",
			func(s *LevelStats) Value { return millis(s.MaxGapP95) }),
		fraction("stall_share", "share of successful requests with a gap > 1 s", "stalled",
			func(s *LevelStats) float64 { return s.StallShare }),
		fraction("rebuffer_ratio_p95", "reader's waiting / reading time U/r per request (r = --reading-speed, 6 tok/s by default), p95", "rebuffer p95",
			func(s *LevelStats) float64 { return s.RebufferRatioP95 }),
		fraction("smooth_share", "share of requests with a token whose reader never waited", "smooth",
			func(s *LevelStats) float64 { return s.SmoothShare }),
	}
}
