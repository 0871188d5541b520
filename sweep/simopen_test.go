package sweep_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sim"
	"github.com/toksweep/toksweep/sweep"
)

// smallSim is a simulator of known capacity: 4 slots, 10 ms decode steps
// (plus 0.5 ms per running sequence), so a request of 16 tokens holds a
// slot about 16 × 12 ms ≈ 0.19 s and the server completes at most about
// 4 / 0.19 ≈ 21 requests per second.
func smallSim(t *testing.T) string {
	t.Helper()
	srv, err := sim.New(sim.Config{Model: "m", MaxModelLen: 4096, MaxNumSeqs: 4, PrefillTokensPerSec: 1e6,
		DecodeBase: 10 * time.Millisecond, DecodePerSeq: 500 * time.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	addr, err := srv.Start(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + addr.String()
}

func clientMax(t *testing.T, url string, maxTokens int) sweep.Doer {
	t.Helper()
	cl, err := client.New(client.Config{BaseURL: url + "/v1", Model: "m", MaxTokens: maxTokens, ExtraBody: map[string]any{"ignore_eos": true}, RequestTimeout: 60 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// Below capacity (8 req/s against about 21) the open loop gets what it
// offers: every arrival completes, the completion rate is the arrival rate
// within 2%, the sender is on time, and TTFT does not climb. Above it (40
// req/s) the queue grows for the whole level: the level is flagged
// unstable and TTFT at its end is far above TTFT at its start.
func TestOpenLoopAgainstSim(t *testing.T) {
	if testing.Short() {
		t.Skip("an 8 s load")
	}
	url := smallSim(t)
	// The sender's lateness is the test machine's as much as the code's: a
	// 50 ms hiccup on a busy 2-core box fails one attempt, not three.
	var errs []string
	for attempt := 1; attempt <= 3; attempt++ {
		errs = belowCapacity(t, url)
		if len(errs) == 0 {
			break
		}
		t.Logf("attempt %d: %s", attempt, strings.Join(errs, "; "))
	}
	for _, e := range errs {
		t.Error(e)
	}

	above := runOpen(t, sweep.Config{Rates: []float64{40}, Requests: 80, Rate: sweep.RateSpec{Arrival: sweep.Constant}}, clientMax(t, url, 16))
	a := report.Summarize(above)
	first, last := edgeTTFT(above)
	t.Logf("40 req/s: offered %.3f/s, achieved %.3f/s, TTFT first tenth %v, last tenth %v, rise %v; %s",
		a.OfferedRPS, a.AchievedRPS, first, last, a.TTFTRise, a.UnstableReason)
	if !a.Unstable {
		t.Error("above capacity not flagged unstable")
	}
	if last < 5*first || last < 500*time.Millisecond {
		t.Errorf("TTFT at the end %v, at the start %v: want the end far above", last, first)
	}
	if a.AchievedRPS > 0.8*a.OfferedRPS {
		t.Errorf("achieved %.1f/s of %.1f/s offered above capacity", a.AchievedRPS, a.OfferedRPS)
	}
}

// belowCapacity runs 40 arrivals at 8 req/s and says what is wrong with
// them, nothing when all is well.
func belowCapacity(t *testing.T, url string) []string {
	below := runOpen(t, sweep.Config{Rates: []float64{8}, Requests: 40, Rate: sweep.RateSpec{Arrival: sweep.Constant}}, clientMax(t, url, 16))
	s := report.Summarize(below)
	t.Logf("8 req/s: offered %.3f/s, achieved %.3f/s, dispatch delay p50 %v p99 %v, TTFT p50 %v rise %v, peak in flight %d",
		s.OfferedRPS, s.AchievedRPS, s.DispatchDelayP50, s.DispatchDelayP99, s.TTFTP50, s.TTFTRise, s.InflightPeak)
	var errs []string
	if s.RequestsOK != 40 || math.Abs(s.AchievedRPS/s.OfferedRPS-1) > 0.02 || math.Abs(s.OfferedRPS/8-1) > 1e-6 {
		errs = append(errs, fmt.Sprintf("below capacity: %d ok, achieved %.3f/s against offered %.3f/s (want 40, within 2%%, offered 8)", s.RequestsOK, s.AchievedRPS, s.OfferedRPS))
	}
	if s.DispatchDelayP99 > 50*time.Millisecond {
		errs = append(errs, fmt.Sprintf("dispatch delay p99 %v > 50ms", s.DispatchDelayP99))
	}
	if s.Unstable {
		errs = append(errs, "below capacity flagged unstable: "+s.UnstableReason)
	}
	return errs
}

// edgeTTFT is the mean TTFT of the first and the last tenth of a level's
// requests, in scheduled order.
func edgeTTFT(l sweep.Level) (first, last time.Duration) {
	n := len(l.Records) / 10
	mean := func(from int) time.Duration {
		var sum time.Duration
		for i := from; i < from+n; i++ {
			sum += report.RequestTTFT(&l.Records[i])
		}
		return sum / time.Duration(n)
	}
	// Records are sorted by Start, which keeps the scheduled order here
	// (constant gaps, one feeder).
	return mean(0), mean(len(l.Records) - n)
}
