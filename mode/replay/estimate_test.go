package replay

import (
	"testing"
	"time"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/workload/trace"
)

// A replay's pre-run line counts the trace's requests per speed (less the
// warm-up, at most --requests), not the rate mode's 20 requests per rate,
// and its time is the span over each speed plus the longest request.
func TestReplayUpFront(t *testing.T) {
	t.Parallel()
	e := Estimate{Speeds: []float64{1, 2}, Summary: trace.Summary{Requests: 41, Span: 2 * time.Second}}
	e.Summary.Output.Max = 40 // 1 s at 40 tok/s
	// (2s/1 + 1s) + (2s/2 + 1s) = 5s a run, × 2 runs: about 10 seconds.
	p := mode.Timing{Repeat: 2, Warmup: 1, Est: e}
	want := "the sweep takes about 10 seconds: 2 speeds × 2 runs × 40 requests of the trace over its 2s span / the speed (up to 40 output tokens each, 1s a request at an assumed 40 tok/s per stream)"
	if got := p.UpFront(); got != want {
		t.Errorf("upFront\n got %q\nwant %q", got, want)
	}
	p.Requests = 10
	e.Auto = true
	p.Est = e
	want = "speeds are chosen as the sweep goes; a level replays 10 requests of the trace over its 2s span / the speed (up to 40 output tokens each, 1s a request at an assumed 40 tok/s per stream)"
	if got := p.UpFront(); got != want {
		t.Errorf("upFront auto\n got %q\nwant %q", got, want)
	}
}
