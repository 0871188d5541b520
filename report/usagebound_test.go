package report

import (
	"math"
	"testing"

	"github.com/toksweep/toksweep/client"
)

// TestAbsurdUsage checks that int64-sized usage counts, which overflowed
// the completion tokens sum, are flagged as mismatches and replaced by
// the chunk count in every output-size figure.
func TestAbsurdUsage(t *testing.T) {
	t.Parallel()
	huge := func(r *client.Record) { r.CompletionTokens = math.MaxInt64 }
	s := Summarize(level(2,
		with(stream(0, 100*msec, 10*msec, 10), huge),
		with(stream(0, 100*msec, 10*msec, 20), huge),
		stream(0, 100*msec, 10*msec, 30),
	), Settings{})
	if s.CompletionTokensMean != 20 || s.CompletionTokensMin != 10 || s.CompletionTokensMax != 30 {
		t.Errorf("completion tokens mean %v min %d max %d, want 20 10 30",
			s.CompletionTokensMean, s.CompletionTokensMin, s.CompletionTokensMax)
	}
	if s.TokenCountMismatch != 2 {
		t.Errorf("token count mismatch %d, want the 2 absurd requests", s.TokenCountMismatch)
	}
	if s.AggregateOutputTPS <= 0 || math.IsInf(s.AggregateOutputTPS, 0) || s.AggregateOutputTPS > 1e6 {
		t.Errorf("aggregate output %v tok/s", s.AggregateOutputTPS)
	}
}
