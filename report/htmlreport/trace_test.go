package htmlreport

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/workload/trace"
)

// A replay's page shows the trace summary; another run's has no Trace section.
func TestTraceSection(t *testing.T) {
	sum := testSummary()
	var plain bytes.Buffer
	if err := Write(&plain, sum, testStats(), Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "<h2>Trace</h2>") {
		t.Error("a run without a trace has a Trace section")
	}
	sum.Trace = &trace.Summary{Format: trace.Mooncake, BlockSize: 512, Requests: 4, Skipped: 1, Span: 3 * time.Second, MeanRate: 1, PeakRate1s: 3,
		Input: trace.Distribution{Mean: 828, Min: 512, P50: 600, P90: 1100, P99: 1100, Max: 1100}, PrefixReuse: 0.4637, HasHashes: true}
	var b bytes.Buffer
	if err := Write(&b, sum, testStats(), Options{}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"<h2>Trace</h2>", "mooncake, blocks of 512 tokens", "4 (1 line skipped) over 3s", "mean 1 req/s (speed 1), peak 3 in 1 s",
		"mean 828, min 512, p50 600, p90 1100, p99 1100, max 1100", "<td>46.4%</td>"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("page lacks %q", w)
		}
	}
	if strings.Contains(b.String(), "sessions</th>") {
		t.Error("a trace without sessions shows sessions")
	}
}
