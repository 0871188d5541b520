package sim

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// stepLateness streams maxTokens tokens through a fresh server with 3ms
// steps (long enough that the pacer both sleeps and spins) and returns the
// p50, p99 and max of step end − deadline.
func stepLateness(tb testing.TB, maxTokens int) (p50, p99, worst time.Duration) {
	tb.Helper()
	cfg := testConfig()
	cfg.DecodeBase, cfg.MaxModelLen = 3*time.Millisecond, maxTokens+16
	s, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	srv := httptestServer(tb, s)
	if _, err := measureStream(srv, "hello", maxTokens); err != nil {
		tb.Fatal(err)
	}
	late := s.eng.lateness()
	slices.Sort(late)
	q := func(p float64) time.Duration { return late[int(p*float64(len(late)-1))] }
	return q(0.5), q(0.99), late[len(late)-1]
}

// TestPacingAccuracy checks that the scheduler ends its steps on time. The
// goal is a p99 under ~200µs on an idle machine; the test logs the p99 but
// fails only on what a busy machine cannot explain: a median over 50µs,
// which would mean the pacer is not spinning (a bare timer wakes 0.1–1ms
// late). BenchmarkPacing reports the figures on their own.
//
// On a starved machine the spinning pacer itself is descheduled for
// milliseconds at a time, which a bare timer on a quiet one never is: an
// attempt whose p99 is over loadedLate is run again, and the test is
// skipped if no attempt ran on a machine that let it.
func TestPacingAccuracy(t *testing.T) {
	var p99 time.Duration
	ownP99 := func() func() (time.Duration, string) {
		return func() (time.Duration, string) { return p99, "the steps' own p99" }
	}
	eventuallyOn(t, ownP99, func() error {
		var p50, worst time.Duration
		p50, p99, worst = stepLateness(t, 400)
		t.Logf("step end − deadline over 400 steps: p50 %v, p99 %v, max %v", p50, p99, worst)
		if p50 > 50*time.Microsecond {
			return fmt.Errorf("median lateness %v, want a few µs", p50)
		}
		return nil
	})
}

// BenchmarkPacing reports how late steps end, in µs: run it on an idle
// machine (go test -run '^$' -bench Pacing ./sim). One op is one 3ms step.
func BenchmarkPacing(b *testing.B) {
	p50, p99, worst := stepLateness(b, max(b.N, 2))
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	b.ReportMetric(us(p50), "p50-late-µs")
	b.ReportMetric(us(p99), "p99-late-µs")
	b.ReportMetric(us(worst), "max-late-µs")
}
