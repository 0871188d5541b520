package sim

import (
	"bytes"
	"math"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client/promscrape"
)

// TestGPUPowerModel works the power model out on steps of known length:
// the energy counter is idle × elapsed + per-seq × slot-seconds, the power
// idle + per-seq × the batch, the utilisation the busy share since the
// previous scrape, the memory base + KV × usage; and promscrape reads the
// exposition as dcgm-exporter's.
func TestGPUPowerModel(t *testing.T) {
	cfg := Config{GPUs: 2, GPUIdleWatts: 100, GPUWattsPerSeq: 10, GPUBaseMiB: 1000, GPUKVMiB: 500}
	m := newMetrics()
	t0 := m.gpu.epoch
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	m.stepped(at(0), at(500), 4)    // 2 slot-seconds
	m.stepped(at(500), at(1000), 2) // 1 more
	m.setKV(0.5)
	var b bytes.Buffer
	if err := m.writeGPU(&b, cfg, 3, at(2000)); err != nil {
		t.Fatal(err)
	}
	gpus, err := promscrape.ParseGPUs(&b)
	if err != nil || len(gpus) != 2 {
		t.Fatalf("%d GPUs, %v", len(gpus), err)
	}
	for _, g := range gpus {
		// 100 W × 2 s + 10 W × 3 slot-seconds = 230 J; busy 1 s of 2.
		if g.Energy.V != 230_000 || g.Power.V != 130 || g.Util.V != 50 || g.MemUsed.V != 1250 {
			t.Errorf("GPU %s: energy %v mJ, power %v W, util %v%%, memory %v MiB; want 230000, 130, 50, 1250",
				g.ID, g.Energy.V, g.Power.V, g.Util.V, g.MemUsed.V)
		}
	}
	if gpus[0].ID == gpus[1].ID || gpus[0].Host != "toksweep-sim" {
		t.Errorf("GPUs %+v", gpus)
	}
	b.Reset()
	cfg.GPUNoEnergyCounter = true
	_ = m.writeGPU(&b, cfg, 0, at(3000))
	gpus, _ = promscrape.ParseGPUs(&b)
	if gpus[0].Energy.OK || gpus[0].Util.V != 0 {
		t.Errorf("without the counter, idle since the last scrape: %+v", gpus[0])
	}
	if s := m.gpu.scrapes; len(s) != 2 || s[0].EnergyMJ != 230_000 || s[0].PowerW != 130 {
		t.Errorf("scrapes kept: %+v", s)
	}
}

// TestDrafterAcceptance runs requests through a drafter of 4 tokens
// accepting 0.7 of them: the spec_decode counters say 0.7 within 2%, every
// request still gets its max_tokens, and the decode steps emit 1 + the
// accepted tokens (the output tokens less the first are the drafts plus
// their accepted tokens, but for the last step of each request, cut at
// max_tokens).
func TestDrafterAcceptance(t *testing.T) {
	cfg := testConfig()
	cfg.MaxModelLen = 2048
	cfg.DraftTokens, cfg.DraftAcceptance = 4, 0.7
	cfg.DecodeBase = 200 * time.Microsecond
	s, url := startSim(t, cfg)
	const n, maxTokens = 8, 1000
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if _, err := fetchStream(url+"/v1/chat/completions", chatBody("hello there", maxTokens)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got := scrape(t, url)
	drafts, draftTok, acc := got["vllm:spec_decode_num_drafts_total{}"], got["vllm:spec_decode_num_draft_tokens_total{}"], got["vllm:spec_decode_num_accepted_tokens_total{}"]
	if draftTok != 4*drafts || math.Abs(acc/draftTok-0.7) > 0.02*0.7 {
		t.Errorf("drafts %v, draft tokens %v, accepted %v: acceptance %.4f, want 0.7 within 2%%", drafts, draftTok, acc, acc/draftTok)
	}
	if st := s.Stats(); st.GeneratedTokens != n*maxTokens {
		t.Errorf("generated %d tokens, want %d", st.GeneratedTokens, n*maxTokens)
	}
	decodeTokens := float64(n * (maxTokens - 1))
	if emitted := drafts + acc; emitted < decodeTokens || emitted > decodeTokens+4*n {
		t.Errorf("drafts + accepted = %v, want the %v decode tokens plus at most the 4 cut from each request's last step", emitted, decodeTokens)
	}
	if resp, err := http.Get(url + "/gpu/metrics"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("/gpu/metrics: %v %v", resp, err)
	}
	plain := testConfig()
	_, url2 := startSim(t, plain)
	if _, ok := scrape(t, url2)["vllm:spec_decode_num_drafts_total{}"]; ok {
		t.Error("a server without a drafter exports the spec_decode counters")
	}
}
