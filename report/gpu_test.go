package report

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/client/promscrape"
)

// gpuLevel is a level of two successful measured requests of 100 and 300
// tokens, a warm-up of 50 and a failure, on two GPUs whose telemetry is
// known: 1000 J by the counter on one, 200 W × 2 s on the other.
func gpuLevel(m *promscrape.LevelMetrics) LevelStats {
	recs := []client.Record{
		with(stream(0, 10*msec, msec, 50), func(r *client.Record) { r.Warmup = true }),
		stream(100*msec, 10*msec, msec, 100),
		stream(200*msec, 10*msec, msec, 300),
		failed(client.HTTP5xx, 0, 300*msec, 400*msec),
	}
	l := level(4, recs...)
	l.Server = m
	return Summarize(l, Settings{})
}

func twoGPUs() *promscrape.GPUMetrics {
	gauge := func(v float64) promscrape.Gauge { return promscrape.Gauge{Sum: 2 * v, N: 2} }
	return &promscrape.GPUMetrics{Endpoints: 1, Scrapes: 2, GPUs: []promscrape.GPU{
		{ID: "GPU-a", Power: gauge(300), Util: gauge(90), MemUsed: gauge(70000), MemMax: 71000,
			Energy: promscrape.Increase{Delta: 1_000_000, OK: true}, Span: 2 * time.Second},
		{ID: "GPU-b", Power: gauge(200), Util: gauge(50), MemUsed: gauge(60000), MemMax: 65000, Span: 2 * time.Second},
	}}
}

// TestGPUFigures works the GPU columns out by hand: 1000 J + 200 W × 2 s
// = 1400 J; 450 output tokens of 3 successful requests (warm-up included,
// the failure not) give 450/1400 tok/J and 1400/3 J per request.
func TestGPUFigures(t *testing.T) {
	s := gpuLevel(&promscrape.LevelMetrics{Scrapes: 2, GPU: twoGPUs()})
	f := figures(s)
	want := map[string]string{
		"gpu_count": "2", "gpu_util_mean": "70.0", "gpu_mem_used_mean_mib": "130000.0", "gpu_mem_used_max_mib": "71000.0",
		"gpu_power_mean_w": "500.0", "gpu_energy_j": "1400.000", "gpu_energy_source": "mixed",
		"gpu_output_tokens_per_j": CSVNum(450.0/1400, fracDecimals), "gpu_j_per_request": CSVNum(1400.0/3, tpsDecimals),
		"gpu_incomplete": "",
	}
	for k, v := range want {
		if f[k] != v {
			t.Errorf("%s = %q, want %q", k, f[k], v)
		}
	}
	if s.GPU.OutputTokens != 450 || s.GPU.Requests != 3 {
		t.Errorf("output tokens %d of %d requests, want 450 of 3", s.GPU.OutputTokens, s.GPU.Requests)
	}
	if !s.Server.Scraped {
		t.Error("the server's own metrics were sampled too")
	}
}

// TestGPUFiguresIncomplete: a GPU without power readings nor counter
// leaves power, energy and the per-token figures empty, and says why;
// what every GPU has (utilisation) is still given.
func TestGPUFiguresIncomplete(t *testing.T) {
	g := twoGPUs()
	g.GPUs[1].Power = promscrape.Gauge{}
	f := figures(gpuLevel(&promscrape.LevelMetrics{NoServer: true, GPU: g}))
	for _, k := range []string{"gpu_power_mean_w", "gpu_energy_j", "gpu_energy_source", "gpu_output_tokens_per_j", "gpu_j_per_request"} {
		if f[k] != "" {
			t.Errorf("%s = %q, want empty", k, f[k])
		}
	}
	if f["gpu_util_mean"] != "70.0" || !strings.Contains(f["gpu_incomplete"], "without a power reading") {
		t.Errorf("util %q, incomplete %q", f["gpu_util_mean"], f["gpu_incomplete"])
	}
	// Only the GPUs were sampled: the server's columns stay empty.
	if f["server_scrapes"] != "" || f["server_running_mean"] != "" {
		t.Errorf("server columns %q %q without the server's metrics", f["server_scrapes"], f["server_running_mean"])
	}
	none := figures(gpuLevel(nil))
	if none["gpu_count"] != "" || none["gpu_energy_j"] != "" {
		t.Errorf("without telemetry: %q %q", none["gpu_count"], none["gpu_energy_j"])
	}
}

// TestSpecDecodeFigures: the server's speculative-decoding counters give
// draft and accepted tokens and their ratios; without them the columns
// are empty.
func TestSpecDecodeFigures(t *testing.T) {
	m := &promscrape.LevelMetrics{Scrapes: 1,
		SpecDrafts:      promscrape.Increase{Delta: 100, OK: true},
		SpecDraftTokens: promscrape.Increase{Delta: 400, OK: true},
		SpecAccepted:    promscrape.Increase{Delta: 280, OK: true},
	}
	f := figures(gpuLevel(m))
	want := map[string]string{"server_spec_draft_tokens": "400", "server_spec_accepted_tokens": "280",
		"server_spec_acceptance": "0.7000", "server_spec_accepted_per_draft": "2.8000"}
	for k, v := range want {
		if f[k] != v {
			t.Errorf("%s = %q, want %q", k, f[k], v)
		}
	}
	s := gpuLevel(&promscrape.LevelMetrics{Scrapes: 1})
	if !math.IsNaN(s.Server.SpecAcceptance) || figures(s)["server_spec_draft_tokens"] != "" {
		t.Errorf("without the counters: %v", s.Server.SpecAcceptance)
	}
}
