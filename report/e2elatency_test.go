package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
)

// TestE2ELatency checks e2e latency (End − Start) on hand-made requests:
// ten successful ones of 100 ms, 200 ms, … 1000 ms (in shuffled order, the
// last chunk 5 ms before End), a failed one of 5 s and a 9 s warm-up, which
// are left out. Nearest rank over n = 10: p50 is x5, p90 is x9, p99 is x10.
func TestE2ELatency(t *testing.T) {
	var recs []client.Record
	for _, tenths := range []int{7, 3, 10, 1, 5, 9, 2, 8, 4, 6} {
		d := time.Duration(tenths) * 100 * msec
		r := stream(0, d/2, time.Millisecond, 3)
		r.End = d // the tail after the last chunk counts
		r.LastToken = d - 5*msec
		recs = append(recs, r)
	}
	recs = append(recs,
		failed(client.Timeout, 0, 0, 5*time.Second),
		with(stream(0, time.Second, msec, 2), func(r *client.Record) { r.End, r.Warmup = 9*time.Second, true }),
	)
	s := Summarize(level(1, recs...), Settings{})
	for _, tt := range []struct {
		name string
		got  time.Duration
		want time.Duration
	}{
		{"p50", s.E2ELatencyP50, 500 * msec},
		{"p90", s.E2ELatencyP90, 900 * msec},
		{"p95", s.E2ELatencyP95, 1000 * msec}, // nearest rank: the 10th of 10
		{"p99", s.E2ELatencyP99, 1000 * msec},
	} {
		if tt.got != tt.want {
			t.Errorf("e2e latency %s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	// Written through the registry: CSV cells and JSON values.
	row := figures(s)
	if got := row["e2e_latency_p90_ms"]; got != "900.000" {
		t.Errorf("levels.csv e2e_latency_p90_ms = %q, want 900.000", got)
	}
	b, err := json.Marshal(NewLevelJSON(s))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"e2e_latency_p50_ms":500,"e2e_latency_p90_ms":900,"e2e_latency_p95_ms":1000,"e2e_latency_p99_ms":1000`)) {
		t.Errorf("summary.json level lacks the e2e latency figures: %s", b)
	}

	// No successful request: no figure, an empty cell and null.
	none := Summarize(level(1, failed(client.HTTP5xx, 0, 0, time.Second)), Settings{})
	if none.E2ELatencyP90 != NoSample || figures(none)["e2e_latency_p90_ms"] != "" {
		t.Errorf("no successful request: p90 %v, cell %q", none.E2ELatencyP90, figures(none)["e2e_latency_p90_ms"])
	}
	if b, _ := json.Marshal(NewLevelJSON(none)); !strings.Contains(string(b), `"e2e_latency_p90_ms":null`) {
		t.Errorf("no successful request: %s", b)
	}
}
