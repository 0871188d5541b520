package promscrape

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// TestParseGPUsDCGMExporter reads the exposition written from
// dcgm-exporter's documented format: two GPUs, their four fields, and
// nothing of the fields not read.
func TestParseGPUsDCGMExporter(t *testing.T) {
	f, err := os.Open("testdata/dcgm-exporter.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gpus, err := ParseGPUs(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []GPUReading{
		{ID: "GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52", Host: "gpu-node-a", GPU: "0",
			Power: value{412.318, true}, Util: value{97, true}, MemUsed: value{73001, true}, Energy: value{310356866011, true}},
		{ID: "GPU-8c16e996-bd76-aa91-17e7-b48bcd0208ba", Host: "gpu-node-a", GPU: "1",
			Power: value{398.902, true}, Util: value{95, true}, MemUsed: value{72999, true}, Energy: value{298004411250, true}},
	}
	if len(gpus) != len(want) {
		t.Fatalf("%d GPUs, want %d: %+v", len(gpus), len(want), gpus)
	}
	for i := range want {
		if gpus[i] != want[i] {
			t.Errorf("GPU %d:\n got %+v\nwant %+v", i, gpus[i], want[i])
		}
	}
}

// TestParseGPUsLabels: a GPU without a UUID is told by host and index, a
// repeated line of one GPU's field is not added, an escaped label value is
// read whole, NaN is no reading, and a page that is not an exposition is
// an error.
func TestParseGPUsLabels(t *testing.T) {
	page := `DCGM_FI_DEV_POWER_USAGE{gpu="0",Hostname="h\"1"} 100
DCGM_FI_DEV_POWER_USAGE{gpu="0",Hostname="h\"1",pod="other"} 900
DCGM_FI_DEV_POWER_USAGE{gpu="1",Hostname="h\"1"} NaN
DCGM_FI_DEV_GPU_UTIL{gpu="1",Hostname="h\"1"} 50
vllm:num_requests_running 3
`
	gpus, err := ParseGPUs(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	want := []GPUReading{
		{ID: `h"1/0`, Host: `h"1`, GPU: "0", Power: value{100, true}},
		{ID: `h"1/1`, Host: `h"1`, GPU: "1", Util: value{50, true}},
	}
	if len(gpus) != 2 || gpus[0] != want[0] || gpus[1] != want[1] {
		t.Errorf("got %+v\nwant %+v", gpus, want)
	}
	if _, err := ParseGPUs(strings.NewReader("<html>404</html>\n")); err == nil {
		t.Error("an HTML page parsed")
	}
}

// TestGPUTotals works the totals out on hand-made GPUs: the counter's
// increase in mJ, power × span without it, sums over GPUs, the mean of
// utilisation, and empty totals that say why when a GPU or a host is
// missing.
func TestGPUTotals(t *testing.T) {
	g := func(power, util, mem float64, n int, energyMJ float64, counter bool, span time.Duration) GPU {
		x := GPU{Span: span, MemMax: mem + 10}
		for range n {
			x.add(&GPUReading{Power: value{power, true}, Util: value{util, true}, MemUsed: value{mem, true}})
		}
		x.Energy = Increase{Delta: energyMJ, OK: counter}
		return x
	}
	both := GPUMetrics{GPUs: []GPU{
		g(300, 90, 70000, 3, 600_000, true, 2*time.Second),
		g(200, 50, 60000, 3, 0, false, 2*time.Second), // power × time: 200 W × 2 s
	}}
	tot := both.Totals()
	want := GPUTotals{GPUs: 2, UtilMean: 70, MemMean: 130000, MemMax: 70010, PowerMean: 500,
		EnergyJ: 600 + 400, EnergySource: EnergyMixed}
	if tot != want {
		t.Errorf("totals\n got %+v\nwant %+v", tot, want)
	}
	counter := GPUMetrics{GPUs: []GPU{g(300, 90, 70000, 2, 1500, true, time.Second)}}
	if tot := counter.Totals(); tot.EnergyJ != 1.5 || tot.EnergySource != EnergyCounter {
		t.Errorf("counter only: %+v", tot)
	}

	noPower := both
	noPower.GPUs = append([]GPU{}, both.GPUs...)
	noPower.GPUs[1].Power = Gauge{}
	tot = noPower.Totals()
	if !math.IsNaN(tot.PowerMean) || !math.IsNaN(tot.EnergyJ) || tot.EnergySource != "" || tot.UtilMean != 70 ||
		!strings.Contains(tot.Incomplete, "1 of 2 GPUs without a power reading") {
		t.Errorf("a GPU without power: %+v", tot)
	}
	unseen := both
	unseen.Unseen = []string{"http://h2:9400/metrics"}
	tot = unseen.Totals()
	if !math.IsNaN(tot.PowerMean) || !math.IsNaN(tot.UtilMean) || !math.IsNaN(tot.MemMax) || !math.IsNaN(tot.EnergyJ) ||
		!strings.Contains(tot.Incomplete, "no scrape of http://h2:9400/metrics succeeded") {
		t.Errorf("a host unseen: %+v", tot)
	}
	if tot := (&GPUMetrics{}).Totals(); !math.IsNaN(tot.EnergyJ) || tot.Incomplete == "" {
		t.Errorf("no GPU: %+v", tot)
	}
}

// fakeDCGM answers each scrape at once in the bubble's time: GPU 0 draws
// 250 W with its energy counter integrating it exactly (mJ); GPU 1 draws
// 100 W and has no counter.
type fakeDCGM struct {
	mu sync.Mutex
	t0 time.Time
	n  int
}

func (f *fakeDCGM) RoundTrip(*http.Request) (*http.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	ms := time.Since(f.t0).Milliseconds()
	body := fmt.Sprintf(`DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-a"} 250
DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="0",UUID="GPU-a"} %d
DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-a"} %d
DCGM_FI_DEV_POWER_USAGE{gpu="1",UUID="GPU-b"} 100
DCGM_FI_DEV_FB_USED{gpu="1",UUID="GPU-b"} 1000
`, 1_000_000+250*ms, 1000*f.n)
	return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader(body)), Header: http.Header{}}, nil
}

// TestGPUSamplerLevel samples a level of 3 s in fake time: GPU 0's energy
// is its counter's increase (250 W × 3 s), GPU 1's its power × the span
// (100 W × 3 s); its memory samples are the in-level scrapes' only.
func TestGPUSamplerLevel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeDCGM{t0: time.Now()}
		s := &GPUSampler{URLs: []string{"http://gpu.invalid:9400/metrics"}, Client: &http.Client{Transport: f}}
		stop := s.Start(context.Background())
		time.Sleep(3 * time.Second)
		m := stop()
		in := f.n - 2 // the opening and closing scrapes bound the level
		if m.Scrapes != in || m.Failures != 0 || len(m.GPUs) != 2 {
			t.Fatalf("%d scrapes (want %d), %d failures, %d GPUs", m.Scrapes, in, m.Failures, len(m.GPUs))
		}
		a, b := m.GPUs[0], m.GPUs[1]
		if j, src := a.EnergyJ(); j != 750 || src != EnergyCounter {
			t.Errorf("GPU a: %v J by %s, want 750 by the counter", j, src)
		}
		if j, src := b.EnergyJ(); j != 300 || src != EnergyPowerTime {
			t.Errorf("GPU b: %v J by %s, want 300 by power×time", j, src)
		}
		// The in-level scrapes are numbers 2 … in+1: memory 2000 … (in+1)·1000.
		if got, wantMean := a.MemUsed.Mean(), 1000*float64(in+3)/2; got != wantMean || a.MemMax != float64(1000*(in+1)) {
			t.Errorf("GPU a memory mean %v max %v, want %v and %v", got, a.MemMax, wantMean, 1000*(in+1))
		}
		if tot := m.Totals(); tot.EnergyJ != 1050 || tot.PowerMean != 350 || tot.EnergySource != EnergyMixed || !math.IsNaN(tot.UtilMean) {
			t.Errorf("totals %+v", tot)
		}
	})
}

// TestGPUSamplerUnseenHost: a host that never answers leaves the totals
// empty and is named, while the other host's GPUs are kept.
func TestGPUSamplerUnseenHost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeDCGM{t0: time.Now()}
		rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if r.URL.Host == "down.invalid" {
				return &http.Response{StatusCode: http.StatusServiceUnavailable, Body: io.NopCloser(strings.NewReader("")), Header: http.Header{}}, nil
			}
			return f.RoundTrip(r)
		})
		s := &GPUSampler{URLs: []string{"http://up.invalid/metrics", "http://down.invalid/metrics"}, Client: &http.Client{Transport: rt}}
		stop := s.Start(context.Background())
		time.Sleep(time.Second)
		m := stop()
		tot := m.Totals()
		if len(m.GPUs) != 2 || !math.IsNaN(tot.EnergyJ) || !strings.Contains(tot.Incomplete, "down.invalid") || m.Failures == 0 {
			t.Errorf("GPUs %d, totals %+v, failures %d", len(m.GPUs), tot, m.Failures)
		}
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestSpecDecode: speculative decoding's counters are read with or without
// _total, their increase kept, and the acceptance figures derived.
func TestSpecDecode(t *testing.T) {
	read := func(page string) *Snapshot {
		e, err := Parse(strings.NewReader(page))
		if err != nil {
			t.Fatal(err)
		}
		return Read(e)
	}
	open := read("vllm:spec_decode_num_drafts_total 10\nvllm:spec_decode_num_draft_tokens_total 40\nvllm:spec_decode_num_accepted_tokens_total 20\n")
	closing := read(`vllm:spec_decode_num_drafts_total{engine="0"} 60
vllm:spec_decode_num_drafts_total{engine="1"} 50
vllm:spec_decode_num_draft_tokens_total{engine="0"} 240
vllm:spec_decode_num_draft_tokens_total{engine="1"} 200
vllm:spec_decode_num_accepted_tokens_total{engine="0"} 170
vllm:spec_decode_num_accepted_tokens_total{engine="1"} 130
`)
	var m LevelMetrics
	m.between(open, closing)
	// Drafts 110 − 10 = 100, draft tokens 440 − 40 = 400, accepted 300 − 20 = 280.
	if m.SpecDrafts.Delta != 100 || m.SpecDraftTokens.Delta != 400 || m.SpecAccepted.Delta != 280 {
		t.Errorf("increases %+v %+v %+v", m.SpecDrafts, m.SpecDraftTokens, m.SpecAccepted)
	}
	if m.SpecAcceptance() != 0.7 || m.SpecAcceptedPerDraft() != 2.8 {
		t.Errorf("acceptance %v, per draft %v; want 280/400 and 280/100", m.SpecAcceptance(), m.SpecAcceptedPerDraft())
	}
	if s := read("vllm:spec_decode_num_draft_tokens 5\n"); s.SpecDraftTokens != (value{5, true}) {
		t.Errorf("without _total: %+v", s.SpecDraftTokens)
	}
	m.between(open, read("vllm:num_requests_running 1\n"))
	if !math.IsNaN(m.SpecAcceptance()) || !math.IsNaN(m.SpecAcceptedPerDraft()) {
		t.Error("figures without the counters")
	}
}

// TestGPUSamplerStopKeepsTheScrapeUnderWay stops a level while its first
// in-level scrape is being answered (slowly): the scrape the endpoint
// served is counted, as the endpoint counted it. A stop that canceled it
// would average fewer samples than the endpoint served.
func TestGPUSamplerStopKeepsTheScrapeUnderWay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeDCGM{t0: time.Now()}
		started := make(chan struct{})
		rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			resp, err := f.RoundTrip(r)
			if f.n == 2 { // the first in-level scrape: served, answered late
				close(started)
				time.Sleep(time.Second)
			}
			return resp, err
		})
		s := &GPUSampler{URLs: []string{"http://gpu.invalid:9400/metrics"}, Client: &http.Client{Transport: rt}}
		stop := s.Start(context.Background())
		<-started
		m := stop()
		if f.n != 3 || m.Scrapes != 1 || m.Failures != 0 { // the next scrape, due during the slow one, is not taken
			t.Errorf("the endpoint served %d scrapes (want the opening, one in-level, the closing); the sampler counted %d in-level, %d failed", f.n, m.Scrapes, m.Failures)
		}
	})
}
