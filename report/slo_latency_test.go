package report

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
)

// latencyLevel is a closed-loop level of 11 successful requests with a
// 100 ms TTFT: ten of 11 tokens whose gaps are 1 ms … 10 ms (TPOT = the
// gap; e2e latency 110 ms … 200 ms), and one of a single token (no TPOT,
// e2e latency 100 ms).
func latencyLevel() LevelStats {
	var recs []client.Record
	for i := range 10 {
		recs = append(recs, stream(time.Duration(i)*time.Second, 100*msec, time.Duration(i+1)*msec, 11))
	}
	recs = append(recs, stream(10*time.Second, 100*msec, msec, 1))
	return Summarize(level(1, recs...), Settings{})
}

// The TPOT and e2e latency bounds: the level's verdict reads tpot_p99 and
// e2e_latency_p95 (nearest rank); goodput counts a request good when it
// meets every bound itself, with a one-token request's TPOT taken as 0,
// as vLLM's --goodput does.
func TestSLOLatencyBounds(t *testing.T) {
	s := latencyLevel()
	if s.TPOTP99 != 10*msec || s.E2ELatencyP95 != 200*msec {
		t.Fatalf("tpot_p99 %v (want 10ms), e2e_latency_p95 %v (want 200ms)", s.TPOTP99, s.E2ELatencyP95)
	}
	for _, tc := range []struct {
		name   string
		o      SLO
		failed []string
		good   int // of 11
	}{
		{"tpot fails the level", SLO{TPOTP99: 5 * msec}, []string{"tpot_p99 10ms > 5ms"}, 6},
		{"tpot passes at the bound", SLO{TPOTP99: 10 * msec}, nil, 11},
		{"e2e fails the level", SLO{E2EP95: 150 * msec}, []string{"e2e_latency_p95 200ms > 150ms"}, 6},
		{"e2e passes at the bound", SLO{E2EP95: 200 * msec}, nil, 11},
		{"both, each request meets both", SLO{TPOTP99: 3 * msec, E2EP95: 190 * msec},
			[]string{"tpot_p99 10ms > 3ms", "e2e_latency_p95 200ms > 190ms"}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := CheckSLO(s, tc.o)
			if r.Pass != (tc.failed == nil) || !slices.Equal(r.Failed, tc.failed) {
				t.Errorf("pass=%v %q, want %q", r.Pass, r.Failed, tc.failed)
			}
			if want := float64(tc.good) / 11; math.Abs(r.GoodputRatio-want) > 1e-12 {
				t.Errorf("goodput ratio %v, want %d/11", r.GoodputRatio, tc.good)
			}
		})
	}
	// No successful request: the criterion fails on "none".
	none := Summarize(level(1, failed(client.HTTP5xx, 0, 0, time.Second)), Settings{})
	if r := CheckSLO(none, SLO{TPOTP99: msec, E2EP95: msec}); !slices.Equal(r.Failed, []string{"tpot_p99 none > 1ms", "e2e_latency_p95 none > 1ms"}) {
		t.Errorf("no sample: %q", r.Failed)
	}
}

// summary.json records the two bounds, and a saved run is judged by them
// again; the objective reads them in words.
func TestSLOLatencyBoundsRecorded(t *testing.T) {
	o := SLO{TPOTP99: 50 * msec, E2EP95: 30 * time.Second}
	if !o.Set() || o.String() != "TPOT p99 ≤ 50ms, e2e latency p95 ≤ 30s" {
		t.Errorf("Set %v, String %q", o.Set(), o.String())
	}
	b, err := json.Marshal(NewSLOConfig(o))
	if err != nil || string(b) != `{"tpot_p99_ms":50,"e2e_latency_p95_ms":30000}` {
		t.Fatalf("%s %v", b, err)
	}
	var c RunConfig
	if err := json.Unmarshal([]byte(`{"slo":`+string(b)+`}`), &c); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.Objective(); !ok || got.TPOTP99 != o.TPOTP99 || got.E2EP95 != o.E2EP95 {
		t.Errorf("read back %+v %v", got, ok)
	}
	if cell := figures(latencyLevel())["e2e_latency_p95_ms"]; !strings.HasPrefix(cell, "200.0") {
		t.Errorf("levels.csv e2e_latency_p95_ms = %q", cell)
	}
}
