package report

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/toksweep/toksweep/client"
)

// The thresholds below which a level's figures cannot bear a verdict.
// docs/metrics.md ("Which levels can bear a verdict") gives the reasons.
const (
	// ErrorShareMax: a level whose failed share of requests (requests
	// canceled by an interruption or at the end of a drain left out) is
	// above this measured a server that was failing, not serving; its
	// aggregate is not a capacity.
	ErrorShareMax = 0.10
	// MinWindowShare: a steady window shorter than this fraction of the
	// level's measured span describes a sliver of the level.
	MinWindowShare = 0.10
	// ShortWindow: a steady window shorter than this is warned about (its
	// aggregate is noisy) but still used.
	ShortWindow = time.Second
	// FewSamples: percentiles over fewer successful requests than this are
	// warned about.
	FewSamples = 10
)

// ErrorShare is the failed share of a level's measured requests, leaving
// out those canceled by the client (an interruption, the end of a drain):
// they say nothing about the server. NaN without such requests.
func (s *LevelStats) ErrorShare() float64 {
	failed := s.RequestsFailed - s.Errors.Count(client.Canceled)
	n := s.RequestsOK + failed
	if n == 0 {
		return math.NaN()
	}
	return float64(failed) / float64(n)
}

// Untrusted says why a level's aggregate cannot take part in the knee or
// the capacity claims: "" when it can, else the reasons, "; "-separated.
func Untrusted(s LevelStats) string {
	var why []string
	if math.IsNaN(s.AggregateOutputTPS) {
		why = append(why, "no request finished")
	}
	if e := s.ErrorShare(); e > ErrorShareMax {
		failed := s.RequestsFailed - s.Errors.Count(client.Canceled)
		why = append(why, fmt.Sprintf("%d of %d requests failed (%.0f%% > %.0f%%)",
			failed, s.RequestsOK+failed, 100*e, 100*ErrorShareMax))
	}
	if s.Unstable {
		why = append(why, "unstable ("+s.UnstableReason+"): its latencies are not steady-state figures")
	}
	if s.WindowFallback {
		why = append(why, "no steady window")
	} else if w := s.Window(); w > 0 && s.MeasuredSpan > 0 && float64(w) < MinWindowShare*float64(s.MeasuredSpan) {
		why = append(why, fmt.Sprintf("steady window %.3gs is %.0f%% of the level (< %.0f%%)",
			w.Seconds(), 100*float64(w)/float64(s.MeasuredSpan), 100*MinWindowShare))
	}
	return strings.Join(why, "; ")
}
